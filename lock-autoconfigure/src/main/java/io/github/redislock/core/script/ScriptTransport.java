package io.github.redislock.core.script;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redislock.LockException;
import io.github.redislock.LockRedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * How a lock script reaches Redis, always as a future: with EVALSHA on the connection factory's shared
 * Lettuce connection (EVAL when Redis lost its script cache), or on a connection of its own when the
 * factory pools them or is not Lettuce's. Failures become {@link LockRedisException}s naming the key.
 */
public final class ScriptTransport {

    private static final int MAX_OPEN_ATTEMPTS = 3;

    private final RedisConnectionFactory connectionFactory;
    /** Lettuce times commands out itself; this only guards against a client configured without command timeouts. */
    private final Duration replyBackstop;
    private volatile Boolean cluster;
    /** Whether every connection of the factory wraps one shared native connection (Lettuce's default). */
    private final boolean sharesNativeConnection;
    private volatile RedisClusterAsyncCommands<byte[], byte[]> shared;

    ScriptTransport(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
        this.sharesNativeConnection = connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection();
        this.replyBackstop = (connectionFactory instanceof LettuceConnectionFactory lettuce
                ? lettuce.getClientConfiguration().getCommandTimeout() : Duration.ofSeconds(60)).plusSeconds(1);
    }

    /** Every call goes to {@code commands} alone: used by the benchmarks' {@code LockClientProbe}. */
    ScriptTransport(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        this.connectionFactory = null;
        this.sharesNativeConnection = true;
        this.replyBackstop = Duration.ofSeconds(60);
        this.cluster = false;
        this.shared = commands;
    }

    /**
     * Runs a lock script: a wait on {@link #runAsync} that ignores interrupts until the reply is in, since a
     * script that changed a lock must never be abandoned half-way, or the caller would not know whether it
     * holds the lock.
     */
    <T> T run(String redisKey, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        return guarded(redisKey, () -> await(this.<T>dispatch(BLOCKING_CALLS, redisKey, script, returnType, keyCount, keysAndArgs, false)));
    }

    /**
     * Sends a lock script and returns at once, with EVALSHA then EVAL once on NOSCRIPT; failures name the
     * key. On the shared Lettuce connection the result completes on the event loop that read the reply, so
     * whoever continues there must not block. Without one (pooling, Jedis) the call runs on a thread of
     * this transport's own: the one place a connection factory of another shape becomes a future, so no
     * caller and no event loop ever blocks for it.
     */
    <T> CompletableFuture<T> runAsync(String redisKey, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        return runAsync(BLOCKING_CALLS, redisKey, script, returnType, keyCount, keysAndArgs);
    }

    /**
     * {@link #runAsync} with the call run on {@code offConnection} when there is no shared Lettuce
     * connection: renewal bounds its threads there, since its batches come every tick whether or not
     * Redis answers the earlier ones.
     */
    <T> CompletableFuture<T> runAsync(Executor offConnection, String redisKey, LockScript script, ReturnType returnType, int keyCount,
                                      byte[]... keysAndArgs) {
        return dispatch(offConnection, redisKey, script, returnType, keyCount, keysAndArgs, true);
    }

    /** @param bounded whether the future itself times out after the reply backstop ({@link #await} bounds its own wait) */
    private <T> CompletableFuture<T> dispatch(Executor offConnection, String redisKey, LockScript script, ReturnType returnType, int keyCount, byte[][] keysAndArgs,
                                              boolean bounded) {
        RedisClusterAsyncCommands<byte[], byte[]> lettuce = shared;
        if (lettuce != null && isOpen(lettuce)) {
            return evalAsync(lettuce, redisKey, script, returnType, keyCount, keysAndArgs, bounded);
        }
        Supplier<T> onItsOwn = () -> call(redisKey, connection -> script(redisKey, connection, script, returnType, keyCount, keysAndArgs));
        if (!sharesNativeConnection) {
            return onConnection(offConnection, redisKey, onItsOwn);
        }
        return onConnection(BLOCKING_CALLS, redisKey, () -> sharedCommands(redisKey)).thenCompose(found -> found != null
                ? evalAsync(found, redisKey, script, returnType, keyCount, keysAndArgs, bounded) : onConnection(offConnection, redisKey, onItsOwn));
    }

    /** Runs blocking Redis work (a connection of its own, a lookup) on this transport's threads; see {@link #runAsync}. */
    <T> CompletableFuture<T> onConnection(String redisKey, Supplier<T> work) {
        return onConnection(BLOCKING_CALLS, redisKey, work);
    }

    private static <T> CompletableFuture<T> onConnection(Executor executor, String redisKey, Supplier<T> work) {
        try {
            return CompletableFuture.supplyAsync(() -> guarded(redisKey, work), executor);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** One thread per call in flight, none kept once idle: a call that waits for a hanging node never delays another. */
    private static final Executor BLOCKING_CALLS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), work -> {
        Thread thread = new Thread(work, "redis-lock-blocking-call");
        thread.setDaemon(true);
        return thread;
    });

    private <T> CompletableFuture<T> evalAsync(RedisClusterAsyncCommands<byte[], byte[]> lettuce, String redisKey, LockScript script,
                                               ReturnType returnType, int keyCount, byte[][] keysAndArgs, boolean bounded) {
        ScriptOutputType output = outputType(returnType);
        byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, keyCount);
        byte[][] args = Arrays.copyOfRange(keysAndArgs, keyCount, keysAndArgs.length);
        CompletableFuture<T> reply = new CompletableFuture<>();
        BiConsumer<T, Throwable> deliver = (value, failure) -> {
            if (failure == null) {
                reply.complete(value);
            } else {
                reply.completeExceptionally(named(redisKey, failure));
            }
        };
        send(() -> lettuce.<T>evalsha(script.sha1Hex(), output, keys, args), bounded).whenComplete((value, failure) -> {
            if (failure != null && isNoScript(failure)) { // sent from the event loop: sending blocks nothing
                send(() -> lettuce.<T>eval(script.body(), output, keys, args), bounded).whenComplete(deliver);
            } else {
                deliver.accept(value, failure);
            }
        });
        return reply;
    }

    /** One command on its way, bounded by the reply backstop when asked; one that failed to start is a failed stage. */
    private <T> CompletableFuture<T> send(Supplier<RedisFuture<T>> command, boolean bounded) {
        try {
            CompletableFuture<T> sent = command.get().toCompletableFuture();
            return bounded ? sent.copy().orTimeout(replyBackstop.toNanos(), TimeUnit.NANOSECONDS) : sent;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The connection factory's shared Lettuce connection, kept between calls: asking the factory for a
     * connection wrapper on every lock operation costs more client time than the script itself. A
     * closed one (the factory was stopped or reset) is looked up again; null when the factory hands out
     * a dedicated connection per call (pooling) or is not Lettuce's, which then goes through {@link #call}.
     */
    @SuppressWarnings("unchecked")
    RedisClusterAsyncCommands<byte[], byte[]> sharedCommands(String redisKey) {
        if (!sharesNativeConnection) {
            return null;
        }
        RedisClusterAsyncCommands<byte[], byte[]> commands = shared;
        if (commands != null && isOpen(commands)) {
            return commands;
        }
        commands = call(redisKey, connection -> connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce
                ? (RedisClusterAsyncCommands<byte[], byte[]>) lettuce : null);
        shared = commands;
        return commands;
    }

    /**
     * Asks the connection behind the commands, not the commands: Lettuce 7 (Spring Boot 4) dropped
     * {@code isOpen()} from the command interfaces, while {@code getStatefulConnection().isOpen()} is on
     * both Lettuce 6 and 7. Commands of an unknown kind count as closed, so they are looked up again.
     */
    private static boolean isOpen(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
            return standalone.getStatefulConnection().isOpen();
        }
        return commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster && cluster.getStatefulConnection().isOpen();
    }

    /** Runs a lock script on a connection the caller has open (the path without a shared Lettuce connection, and replica-sync's). */
    @SuppressWarnings("unchecked")
    <T> T script(String redisKey, RedisConnection connection, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce) {
            return await(evalAsync((RedisClusterAsyncCommands<byte[], byte[]>) lettuce, redisKey, script, returnType, keyCount, keysAndArgs, false));
        }
        try {
            return (T) connection.scriptingCommands().evalSha(script.sha1(), returnType, keyCount, keysAndArgs);
        } catch (RuntimeException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return (T) connection.scriptingCommands().eval(script.body(), returnType, keyCount, keysAndArgs);
        }
    }

    private static ScriptOutputType outputType(ReturnType returnType) {
        return returnType == ReturnType.MULTI ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
    }

    /**
     * Waits for a call already sent, keeping (not obeying) interrupts, bounded by the reply backstop.
     *
     * @throws RuntimeException what the call failed with, unwrapped
     */
    <T> T await(CompletableFuture<T> reply) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + replyBackstop.toNanos();
        try {
            while (true) {
                try {
                    return reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
                } catch (TimeoutException e) {
                    reply.cancel(true);
                    throw new IllegalStateException("No reply from Redis within " + replyBackstop, e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs one Redis interaction. The interrupt flag is cleared for its duration and set again
     * afterwards: the Redis client refuses to start a command on an interrupted thread, and an
     * interrupted thread must still be able to release its locks.
     */
    <T> T call(String redisKey, Function<RedisConnection, T> action) {
        return guarded(redisKey, () -> {
            try (RedisConnection connection = openConnection()) {
                return action.apply(connection);
            }
        });
    }

    /** The interrupt flag handling and failure naming of {@link #call}, for work that has its connection already. */
    static <T> T guarded(String redisKey, Supplier<T> action) {
        boolean interrupted = Thread.interrupted();
        try {
            return action.get();
        } catch (LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw redisFailure(redisKey, e);
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A failure of an asynchronous call as {@link #guarded} names it: a {@link LockException} as it is,
     * anything else a {@link LockRedisException} naming the key; a missing reply says how long it was awaited.
     */
    Throwable named(String redisKey, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof TimeoutException timeout) {
            cause = new IllegalStateException("No reply from Redis within " + replyBackstop, timeout);
        }
        return cause instanceof LockException || cause instanceof Error ? cause : redisFailure(redisKey, cause);
    }

    private static LockRedisException redisFailure(String redisKey, Throwable e) {
        return new LockRedisException("Redis command for lock " + redisKey + " failed: " + rootMessage(e), e);
    }

    /** Opening (possibly connecting) is safe to repeat, so an interrupt that aborted it is kept for later and the open retried. */
    private RedisConnection openConnection() {
        for (int attempt = 1; ; attempt++) {
            try {
                return connectionFactory.getConnection();
            } catch (RuntimeException e) {
                if (attempt == MAX_OPEN_ATTEMPTS || !causedByInterrupt(e)) {
                    throw e;
                }
                Thread.interrupted();
            }
        }
    }

    private static boolean causedByInterrupt(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

    static boolean isNoScript(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    public static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    /** Whether the factory's connections are cluster connections: renewal batches then never span two hash slots. */
    boolean isCluster() {
        Boolean known = cluster;
        if (known == null) {
            known = call("(topology check)", connection -> connection instanceof RedisClusterConnection);
            cluster = known;
        }
        return known;
    }
}
