package io.github.redislock.core.redlock;

import io.github.redislock.core.RedlockLocker;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The independent masters of a {@link RedlockLocker} and the fan-out over them: every call goes to all
 * masters at once on a thread of its own, and a master that fails or has not answered by the node
 * timeout counts as no answer. Apart from the algorithm, so that what "asking a majority" costs and
 * how a slow master is cut off can be read in one place.
 */
public final class RedlockMasters implements AutoCloseable {

    private static final Log log = LogFactory.getLog(RedlockMasters.class);

    private final List<LockCommands> nodes;
    private final List<String> names;
    private final Duration nodeTimeout;
    private final ExecutorService fanOut;

    /**
     * Connects to every master at once, in the background: the first lock attempt should not spend its
     * node timeout on connecting.
     */
    public RedlockMasters(List<RedisConnectionFactory> nodes, List<String> names, Duration nodeTimeout, String keyPrefix) {
        if (nodes.size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent Redis masters, but got " + nodes.size());
        }
        this.nodes = nodes.stream().map(LockCommands::new).toList();
        this.names = List.copyOf(names);
        this.nodeTimeout = nodeTimeout;
        this.fanOut = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "redis-lock-redlock");
            thread.setDaemon(true);
            return thread;
        });
        this.nodes.forEach(node -> fanOut.execute(() -> {
            try {
                node.exists(LockKeys.of(keyPrefix, "__connect"));
            } catch (RuntimeException e) {
                log.debug("Redlock master not reachable yet: " + e);
            }
        }));
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

    public LockCommands node(int index) {
        return nodes.get(index);
    }

    /** How log lines and errors name a master: its URL without password. */
    public String name(int index) {
        return names.get(index);
    }

    /** Runs {@code command} on every master at once; a master that fails or does not answer within the node timeout gives null. */
    public <T> List<T> onEvery(Function<LockCommands, T> command) {
        List<CompletableFuture<T>> calls = new ArrayList<>(nodes.size());
        for (LockCommands node : nodes) {
            calls.add(call(node, command));
        }
        return answersBy(calls, System.nanoTime() + nodeTimeout.toNanos());
    }

    /** Starts {@code command} on one master on a fan-out thread. */
    public <T> CompletableFuture<T> call(LockCommands node, Function<LockCommands, T> command) {
        return CompletableFuture.supplyAsync(() -> command.apply(node), fanOut);
    }

    /** The answers in by the deadline (null for a master that failed or is late); interrupts are kept, not obeyed. */
    public <T> List<T> answersBy(List<CompletableFuture<T>> calls, long deadlineNanos) {
        List<T> answers = new ArrayList<>(calls.size());
        boolean interrupted = false;
        for (int i = 0; i < calls.size(); i++) {
            T answer = null;
            while (true) {
                try {
                    answer = calls.get(i).get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    log.debug("Redlock master " + names.get(i) + " did not answer in time: " + e);
                    break;
                }
            }
            answers.add(answer);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return answers;
    }

    @Override
    public void close() {
        fanOut.shutdownNow();
    }
}
