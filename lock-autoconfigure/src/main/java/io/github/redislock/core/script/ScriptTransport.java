package io.github.redislock.core.script;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
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
 * How a lock script reaches Redis: with EVALSHA on the connection factory's shared Lettuce connection
 * (EVAL when Redis lost its script cache, e.g. after {@code SCRIPT FLUSH} or a restart), or on a
 * connection of its own when the factory pools them or is not Lettuce's. Failures become
 * {@link LockRedisException}s naming the key, and a caller's interrupt never abandons a script half-way.
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
     * Runs a lock script. With Lettuce the call goes through its asynchronous API and is awaited here,
     * ignoring interrupts until the reply is in: a script that changed a lock must never be abandoned
     * half-way by an interrupt, or the caller would not know whether it holds the lock.
     */
    @SuppressWarnings("unchecked")
    <T> T run(String redisKey, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        RedisClusterAsyncCommands<byte[], byte[]> lettuce = sharedCommands(redisKey);
        if (lettuce == null) {
            return call(redisKey, connection -> script(connection, script, returnType, keyCount, keysAndArgs));
        }
        return guarded(redisKey, () -> (T) runAwaited(lettuce, script, returnType, keyCount, keysAndArgs));
    }

    /**
     * Sends a lock script and returns at once: the result completes with the reply, on the thread that
     * reads it (a Lettuce event-loop thread), so whoever continues on it must neither block nor call
     * Redis synchronously there. It has {@link #run}'s NOSCRIPT fallback (EVALSHA, then EVAL once) and
     * failure naming, and like it never abandons a script: the result is not cancellable into Redis.
     *
     * <p>Only the shared native Lettuce connection can take calls without a thread per call. When the
     * factory has none (sharing is switched off, or it is not Lettuce's), the blocking {@link #run} goes to
     * {@code blockingFallback}: correct, but each call then holds one of its threads until Redis answers.
     * The first call, and the first after the factory closed its connection, may block the caller while
     * the connection is looked up, so call from a thread that may wait for Redis (never an event loop).
     */
    <T> CompletableFuture<T> runAsync(String redisKey, LockScript script, ReturnType returnType, int keyCount, Executor blockingFallback,
                                      byte[]... keysAndArgs) {
        RedisClusterAsyncCommands<byte[], byte[]> lettuce;
        try {
            lettuce = sharedCommands(redisKey);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (lettuce == null) {
            return CompletableFuture.supplyAsync(() -> run(redisKey, script, returnType, keyCount, keysAndArgs), blockingFallback);
        }
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
        send(() -> lettuce.<T>evalsha(script.sha1Hex(), output, keys, args)).whenComplete((value, failure) -> {
            if (failure != null && isNoScript(failure)) { // sent from the event loop: sending blocks nothing
                send(() -> lettuce.<T>eval(script.body(), output, keys, args)).whenComplete(deliver);
            } else {
                deliver.accept(value, failure);
            }
        });
        return reply;
    }

    /** One command on its way, bounded by the reply backstop like {@link #awaitUninterruptibly}; one that failed to start is a failed stage. */
    private <T> CompletableFuture<T> send(Supplier<RedisFuture<T>> command) {
        try {
            return command.get().toCompletableFuture().copy().orTimeout(replyBackstop.toNanos(), TimeUnit.NANOSECONDS);
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

    @SuppressWarnings("unchecked")
    <T> T script(RedisConnection connection, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce) {
            return (T) runAwaited((RedisClusterAsyncCommands<byte[], byte[]>) lettuce, script, returnType, keyCount, keysAndArgs);
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

    private Object runAwaited(RedisClusterAsyncCommands<byte[], byte[]> lettuce, LockScript script, ReturnType returnType,
                              int keyCount, byte[][] keysAndArgs) {
        ScriptOutputType output = outputType(returnType);
        byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, keyCount);
        byte[][] args = Arrays.copyOfRange(keysAndArgs, keyCount, keysAndArgs.length);
        try {
            return awaitUninterruptibly(lettuce.evalsha(script.sha1Hex(), output, keys, args));
        } catch (RuntimeException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return awaitUninterruptibly(lettuce.eval(script.body(), output, keys, args));
        }
    }

    private static ScriptOutputType outputType(ReturnType returnType) {
        return returnType == ReturnType.MULTI ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
    }

    /** Waits for the reply, keeping (not obeying) interrupts; bounded by the command timeout as a backstop. */
    <T> T awaitUninterruptibly(RedisFuture<T> reply) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + replyBackstop.toNanos();
        try {
            while (true) {
                try {
                    return reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
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
        return cause instanceof RuntimeException runtime && !(cause instanceof LockException) ? redisFailure(redisKey, runtime) : cause;
    }

    private static LockRedisException redisFailure(String redisKey, RuntimeException e) {
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
