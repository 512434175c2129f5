package io.github.redislock.core.redlock;

import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The independent masters of a {@code RedlockLocker} and the fan-out over them: every call goes to all
 * masters at once, and a master that fails or has not answered by the node timeout counts as no answer.
 * A call that waits for a master's reply on a thread runs on that master's one thread: a hung master
 * ties up one thread, however many calls are made meanwhile, and those left queued behind it past
 * their node timeout are skipped.
 */
public final class RedlockMasters implements AutoCloseable {

    private static final Log log = LogFactory.getLog(RedlockMasters.class);

    private final List<LockCommands> nodes;
    private final List<String> names;
    private final Duration nodeTimeout;
    /** Per master, the one thread on which its calls that block run. */
    private final List<ExecutorService> threads;

    /** Connects to every master in the background: the first attempt should not spend its node timeout connecting. */
    public RedlockMasters(List<RedisConnectionFactory> nodes, List<String> names, Duration nodeTimeout, String keyPrefix) {
        if (nodes.size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent Redis masters, but got " + nodes.size());
        }
        this.nodes = nodes.stream().map(LockCommands::new).toList();
        this.names = List.copyOf(names);
        this.nodeTimeout = nodeTimeout;
        this.threads = this.names.stream().map(name -> Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "redis-lock-redlock " + name);
            thread.setDaemon(true);
            return thread;
        })).toList();
        for (int i = 0; i < nodes.size(); i++) {
            LockCommands node = this.nodes.get(i);
            threads.get(i).execute(() -> {
                try {
                    node.exists(LockKeys.of(keyPrefix, "__connect"));
                } catch (RuntimeException e) {
                    log.debug("Redlock master not reachable yet: " + e);
                }
            });
        }
        if (nodes.size() % 2 == 0) {
            log.warn("Redlock over an even number of masters (" + nodes.size() + ") tolerates no more failures than "
                    + (nodes.size() - 1) + " would; an odd count is recommended");
        }
    }

    public int size() {
        return nodes.size();
    }

    /** How many masters must agree: a majority. */
    public int quorum() {
        return nodes.size() / 2 + 1;
    }

    public Duration nodeTimeout() {
        return nodeTimeout;
    }

    /** How log lines and errors name a master: its URL without password. */
    public String name(int index) {
        return names.get(index);
    }

    /** The thread of master {@code index}, on which its calls that wait for its reply run. */
    Executor thread(int index) {
        return threads.get(index);
    }

    /**
     * Sends {@code command} to every master at once; each answer is null for a master that fails or
     * does not answer within the node timeout.
     *
     * @param command a call that returns its master's answer as a future
     */
    <T> CompletableFuture<List<T>> onEvery(BiFunction<LockCommands, Integer, CompletableFuture<T>> command) {
        List<CompletableFuture<T>> calls = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            calls.add(send(i, command));
        }
        return answersBy(calls, System.nanoTime() + nodeTimeout.toNanos());
    }

    /** Runs a blocking {@code command} on every master at once, each on its master's thread, and waits for the answers (see {@link #onEvery}). */
    <T> List<T> onEveryBlocking(Function<LockCommands, T> command) {
        long deadline = System.nanoTime() + nodeTimeout.toNanos();
        return onEvery((node, index) -> CompletableFuture.supplyAsync(() -> deadline - System.nanoTime() > 0 ? command.apply(node) : null,
                threads.get(index))).join();
    }

    /** One master's call; a call that fails to start is a failed future. */
    <T> CompletableFuture<T> send(int index, BiFunction<LockCommands, Integer, CompletableFuture<T>> command) {
        try {
            return command.apply(nodes.get(index), index);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The answers in by the deadline, null for a master that failed or is late; the calls go on (an undo acts on a late answer). */
    <T> CompletableFuture<List<T>> answersBy(List<CompletableFuture<T>> calls, long deadlineNanos) {
        List<CompletableFuture<T>> bounded = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            String name = names.get(i);
            bounded.add(calls.get(i).copy().exceptionally(failure -> {
                log.debug("Redlock master " + name + " did not answer: " + failure);
                return null;
            }).completeOnTimeout(null, Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS));
        }
        return CompletableFuture.allOf(bounded.toArray(CompletableFuture[]::new))
                .thenApply(all -> bounded.stream().map(CompletableFuture::join).toList());
    }

    @Override
    public void close() {
        threads.forEach(ExecutorService::shutdownNow);
    }
}
