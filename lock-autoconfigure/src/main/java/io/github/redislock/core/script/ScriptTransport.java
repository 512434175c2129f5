package io.github.redislock.core.script;

import io.github.redislock.LockException;
import io.github.redislock.LockRedisException;
import io.github.redislock.core.connection.CallerConnections;
import io.github.redislock.core.renewal.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * How a lock script reaches Redis, always as a future: EVALSHA (EVAL when Redis lost its script cache) on the factory's shared
 * Lettuce connection, or on a bounded thread with a connection of its own when the factory pools connections or is not Lettuce's.
 * Failures become {@link LockRedisException}s naming the key.
 */
public final class ScriptTransport {

    /** The most threads, for every Locker of the JVM, that wait for Redis on a connection of their own (see {@link #boundedThreads}). */
    public static final int BLOCKING_CALL_THREADS = 64;
    public static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis", ScriptTransport.class.getClassLoader());
    static final Executor BLOCKING_CALLS = boundedThreads("redis-lock-blocking-call", BLOCKING_CALL_THREADS, 4096);
    private static final byte[][] SHA1 = Arrays.stream(LockScript.values()).map(script -> LockCommands.bytes(script.sha1Hex())).toArray(byte[][]::new);

    private final RedisConnectionFactory connectionFactory;
    /** The {@link #clientTimeout} and a second; without one (0), the watchdog timeout: a Redis silent that long renewed no watchdog lock. */
    private final Duration replyBackstop;
    /** Not when the client times every command out (Spring's default): a timer per command would only cost the JDK's timer thread. */
    private final boolean backstopPerCommand;
    private final boolean clientWaitsForever;
    private volatile Boolean cluster;
    /** The factory's shared native connection (Lettuce's default), kept: a wrapper per call costs more than the script. */
    private volatile RedisClusterAsyncCommands<byte[], byte[]> shared;
    /** The blocking callers' own connections, or null (see {@link #onCaller}); then {@link #onShared} counts nothing. */
    private final CallerConnections callers;
    /** Calls sent through Lettuce not known to have run: while there are any, a caller's call goes behind them, not beside. */
    private final AtomicInteger onShared = new AtomicInteger();
    /** Of those, the failed ones: a later reply on the shared connection shows Redis ran or dropped them first. */
    private final AtomicInteger unknownOnShared = new AtomicInteger();

    ScriptTransport(RedisConnectionFactory connectionFactory, RedisClusterAsyncCommands<byte[], byte[]> commands, Duration watchdogTimeout,
                    boolean callerConnections) {
        this.connectionFactory = connectionFactory;
        this.shared = commands;
        this.cluster = commands != null ? false : null;
        this.clientWaitsForever = clientTimeout(connectionFactory).isZero();
        this.replyBackstop = clientWaitsForever ? watchdogTimeout : clientTimeout(connectionFactory).plusSeconds(1);
        this.backstopPerCommand = connectionFactory != null && (clientWaitsForever || !(connectionFactory instanceof LettuceConnectionFactory lettuce
                && lettuce.getClientConfiguration().getClientOptions().orElseGet(ClientOptions::create).getTimeoutOptions().isTimeoutCommands()));
        // as long as a call on the shared connection may wait: the client's timeout, or the backstop where the client has none
        this.callers = callerConnections ? CallerConnections.of(connectionFactory, backstopPerCommand ? replyBackstop : clientTimeout(connectionFactory)) : null;
    }

    /** How long the factory's client waits for a reply: Lettuce's command timeout, Jedis's read timeout (0: for ever); 60 s for another. */
    public static Duration clientTimeout(RedisConnectionFactory factory) {
        return factory instanceof LettuceConnectionFactory lettuce ? lettuce.getClientConfiguration().getCommandTimeout()
                : JEDIS_PRESENT && factory instanceof JedisConnectionFactory jedis ? jedis.getClientConfiguration().getReadTimeout() : Duration.ofSeconds(60);
    }

    public <T> T run(String redisKey, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        return guarded(redisKey, () -> await(runAsync(BLOCKING_CALLS, redisKey, script, returnType, keyCount, keysAndArgs)));
    }

    /**
     * At most {@code threads} daemon threads, none kept once idle, with up to {@code queued} tasks waiting: a server that does not
     * answer keeps these busy, not one more thread per call, and a call past the queue fails at once.
     */
    static Executor boundedThreads(String name, int threads, int queued) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(queued), DaemonThreads.named(name),
                (task, full) -> {
            throw new RejectedExecutionException(queued + " calls already wait for one of the " + threads + " " + name
                    + " threads (Redis does not answer them)");
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Sends a lock script: on the shared Lettuce connection it completes on the event loop (continue there without blocking), else on {@code offConnection}. */
    @SuppressWarnings("unchecked")
    <T> CompletableFuture<T> runAsync(Executor offConnection, String redisKey, LockScript script, ReturnType returnType, int keyCount,
                                      byte[]... keysAndArgs) {
        RedisClusterAsyncCommands<byte[], byte[]> lettuce = shared;
        if (callers != null && CallerConnections.callerWaits() && (onShared.get() == 0 || callers.owesReply())
                && lettuce instanceof RedisAsyncCommands<byte[], byte[]> standalone && !(standalone.getStatefulConnection() instanceof StatefulRedisMasterReplicaConnection)) {
            CompletableFuture<T> answered = onCaller(redisKey, script, returnType, keyCount, keysAndArgs);
            if (answered != null) {
                return answered;
            }
        }
        if (callers == null) {
            return onShared(offConnection, redisKey, script, returnType, keyCount, keysAndArgs);
        }
        onShared.incrementAndGet(); // before it is sent: a caller that reads 0 afterwards finds it answered
        // The count's stage, not the reply, goes to the caller: a stage runs before those added earlier, so a caller handed the
        // reply itself could go on (and find the count still up) before the count came down.
        return this.<T>onShared(offConnection, redisKey, script, returnType, keyCount, keysAndArgs).whenComplete((answer, failure) -> {
            if (failure != null) { // Redis may still run it (a timeout, say): it counts until a later reply shows it went first
                unknownOnShared.incrementAndGet();
            } else {
                onShared.addAndGet(-1 - unknownOnShared.getAndSet(0));
            }
        });
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> onShared(Executor offConnection, String redisKey, LockScript script, ReturnType returnType, int keyCount,
                                              byte[]... keysAndArgs) {
        RedisClusterAsyncCommands<byte[], byte[]> lettuce = shared;
        // Asks the connection behind the commands: Lettuce 7 (Spring Boot 4) dropped isOpen() from the command interfaces
        if (lettuce instanceof RedisAsyncCommands<byte[], byte[]> standalone ? standalone.getStatefulConnection().isOpen()
                : lettuce instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster && cluster.getStatefulConnection().isOpen()) {
            return evalAsync(lettuce, redisKey, script, returnType, keyCount, keysAndArgs);
        }
        return onConnection(offConnection, redisKey, connection -> {
            if (connectionFactory instanceof LettuceConnectionFactory factory && factory.getShareNativeConnection()) {
                shared = (RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection(); // the next calls need no thread
            }
            return scriptOn(redisKey, connection, script, returnType, keyCount, keysAndArgs);
        });
    }

    /**
     * The script on the blocking callers' own connection, answered when this returns; null when none could be opened (nothing sent).
     * Only behind every call sent before on the shared connection ({@link #onShared}): a renewal sent ahead of an unlock must run ahead
     * of it (see {@code LockWatchdog}), and a reply this thread did not get in time keeps its connection for the thread's next call.
     */
    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> onCaller(String redisKey, LockScript script, ReturnType returnType, int keyCount, byte[][] keysAndArgs) {
        try {
            Object reply;
            try {
                reply = callers.call(evalCommand(EVALSHA, SHA1[script.ordinal()], keyCount, keysAndArgs));
            } catch (RedisCommandExecutionException e) {
                if (!isNoScript(e)) {
                    throw e;
                }
                reply = callers.call(evalCommand(EVAL, script.body(), keyCount, keysAndArgs));
            }
            return reply == CallerConnections.NOT_SENT ? null : CompletableFuture.completedFuture((T) (returnType == ReturnType.INTEGER || reply instanceof List<?>
                    ? reply : new ArrayList<>(Collections.singletonList(reply)))); // as Lettuce's outputs shape it (see evalOn)
        } catch (RuntimeException e) { // a timeout at the backstop reads as the shared connection's does
            return CompletableFuture.failedFuture(named(redisKey, e instanceof RedisCommandTimeoutException && backstopPerCommand ? new TimeoutException() : e));
        }
    }

    private static final byte[] EVALSHA = "EVALSHA".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVAL = "EVAL".getBytes(StandardCharsets.US_ASCII);

    private static byte[][] evalCommand(byte[] command, byte[] script, int keyCount, byte[][] keysAndArgs) {
        byte[][] sent = new byte[3 + keysAndArgs.length][];
        sent[0] = command;
        sent[1] = script;
        sent[2] = Integer.toString(keyCount).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(keysAndArgs, 0, sent, 3, keysAndArgs.length);
        return sent;
    }

    /** Closes the callers' own connections (a closed Locker's). */
    public void close() {
        if (callers != null) {
            callers.close();
        }
    }

    /** A call on a connection of its own; the client ends it, or else the {@link #replyBackstop} (its thread may stay in the client's read). */
    <T> CompletableFuture<T> onConnection(Executor executor, String redisKey, Function<RedisConnection, T> action) {
        try {
            CompletableFuture<T> called = CompletableFuture.supplyAsync(() -> callHere(redisKey, action), executor);
            return !clientWaitsForever ? called : called.orTimeout(replyBackstop.toNanos(), TimeUnit.NANOSECONDS)
                    .exceptionallyCompose(failure -> CompletableFuture.failedFuture(named(redisKey, failure)));
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(redisFailure(redisKey, e));
        }
    }

    private <T> CompletableFuture<T> evalAsync(RedisClusterAsyncCommands<byte[], byte[]> lettuce, String redisKey, LockScript script,
                                               ReturnType returnType, int keyCount, byte[][] keysAndArgs) {
        return this.<T>sendCommand(() -> evalOn(lettuce, CommandType.EVALSHA, SHA1[script.ordinal()], returnType, keyCount, keysAndArgs))
                .exceptionallyCompose(failure -> !isNoScript(failure) ? CompletableFuture.failedFuture(named(redisKey, failure))
                        : this.<T>sendCommand(() -> evalOn(lettuce, CommandType.EVAL, script.body(), returnType, keyCount, keysAndArgs)) // sent from the event loop: sending blocks nothing
                        .exceptionallyCompose(again -> CompletableFuture.failedFuture(named(redisKey, again))));
    }

    /** EVALSHA or EVAL as Lettuce's own would send it, but from the caller's array as it is and with the SHA-1 encoded once ({@link #SHA1}). */
    @SuppressWarnings("unchecked")
    private static <T> RedisFuture<T> evalOn(RedisClusterAsyncCommands<byte[], byte[]> lettuce, CommandType command, byte[] script,
                                            ReturnType returnType, int keyCount, byte[][] keysAndArgs) {
        CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(script).add(keyCount);
        for (int i = 0; i < keysAndArgs.length; i++) {
            args = i < keyCount ? args.addKey(keysAndArgs[i]) : args.addValue(keysAndArgs[i]);
        }
        return lettuce.dispatch(command, (CommandOutput<byte[], byte[], T>) (returnType == ReturnType.INTEGER
                ? new IntegerOutput<>(ByteArrayCodec.INSTANCE) : new NestedMultiOutput<>(ByteArrayCodec.INSTANCE)), args);
    }

    /** One Lettuce command on its way (bounded by the client's timeout or the backstop); one that failed to start is a failed stage. */
    <T> CompletableFuture<T> sendCommand(Supplier<RedisFuture<T>> command) {
        CompletableFuture<T> reply = started(command); // Lettuce's own: a timer of ours goes on a copy
        return backstopPerCommand ? reply.copy().orTimeout(replyBackstop.toNanos(), TimeUnit.NANOSECONDS) : reply;
    }

    /** A call that throws as it starts (its arguments, a closed executor) as a failed future, like one that fails on its way. */
    public static <T> CompletableFuture<T> started(Supplier<? extends CompletionStage<T>> call) {
        try {
            return call.get().toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @SuppressWarnings("unchecked")
    <T> T scriptOn(String redisKey, RedisConnection connection, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce) {
            return await(evalAsync((RedisClusterAsyncCommands<byte[], byte[]>) lettuce, redisKey, script, returnType, keyCount, keysAndArgs));
        }
        try {
            return (T) connection.scriptingCommands().evalSha(script.sha1Hex(), returnType, keyCount, keysAndArgs);
        } catch (RuntimeException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return (T) connection.scriptingCommands().eval(script.body(), returnType, keyCount, keysAndArgs);
        }
    }

    /**
     * Waits for a call, keeping (not obeying) interrupts: a script that changed a lock must never be abandoned half-way, or the
     * caller would not know whether it holds it. The backstop bounds even a call on a connection of its own.
     */
    public <T> T await(CompletableFuture<T> reply) {
        try {
            return reply.copy().orTimeout(replyBackstop.toNanos(), TimeUnit.NANOSECONDS).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof TimeoutException) {
                reply.cancel(true);
            }
            throw unchecked(unanswered(e.getCause()));
        }
    }

    /** Whether a call failed before it was sent (its executor full or shut down): then no reply of it can have been lost. */
    public static boolean neverSent(Throwable failure) {
        return root(failure) instanceof RejectedExecutionException;
    }

    public static Throwable unwrap(Throwable failure) {
        return (failure instanceof CompletionException || failure instanceof ExecutionException) && failure.getCause() != null
                ? failure.getCause() : failure;
    }

    /** {@link #unwrap}, for a caller that rethrows it: an {@link Error} is thrown at once. */
    public static RuntimeException unchecked(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof Error error) {
            throw error;
        }
        return cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
    }

    /** A look at a lock or the like on a connection of its own; on a client that never times out, bounded as a script by the backstop. */
    public <T> T call(String redisKey, Function<RedisConnection, T> action) {
        return clientWaitsForever ? guarded(redisKey, () -> await(onConnection(BLOCKING_CALLS, redisKey, action))) : callHere(redisKey, action);
    }

    private <T> T callHere(String redisKey, Function<RedisConnection, T> action) {
        return guarded(redisKey, () -> {
            try (RedisConnection connection = openConnection()) {
                return action.apply(connection);
            }
        });
    }

    /**
     * Names the key in a failure, and clears the interrupt flag for the action's duration (set again afterwards): the Redis
     * client refuses to start a command on an interrupted thread, and an interrupted thread must still release its locks.
     */
    static <T> T guarded(String redisKey, Supplier<T> action) {
        boolean interrupted = Thread.interrupted();
        try {
            return action.get();
        } catch (RuntimeException e) {
            throw e instanceof LockException ? e : redisFailure(redisKey, e);
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** An asynchronous call's failure as {@link #guarded} names it. */
    private Throwable named(String redisKey, Throwable failure) {
        Throwable cause = unanswered(unwrap(failure));
        return cause instanceof LockException || cause instanceof Error ? cause : redisFailure(redisKey, cause);
    }

    private Throwable unanswered(Throwable failure) {
        return failure instanceof TimeoutException ? new IllegalStateException("No reply from Redis within " + replyBackstop) : failure; // the timer's trace says nothing
    }

    private static LockRedisException redisFailure(String redisKey, Throwable e) {
        return new LockRedisException("Redis command for lock " + redisKey + " failed: " + rootMessage(e), e);
    }

    /** Opening is safe to repeat, so an interrupt that aborted it is kept for later and the open retried. */
    private RedisConnection openConnection() {
        for (int attempt = 1; ; attempt++) {
            try {
                return connectionFactory.getConnection();
            } catch (RuntimeException e) {
                if (attempt == 3 || !(root(e) instanceof InterruptedException)) {
                    throw e;
                }
                Thread.interrupted();
            }
        }
    }

    /** Redis's reply to EVALSHA of a script it does not have (lost with a restart or SCRIPT FLUSH), under the clients' wrappers. */
    private static boolean isNoScript(Throwable e) {
        return String.valueOf(root(e).getMessage()).contains("NOSCRIPT");
    }

    private static Throwable root(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    public static String rootMessage(Throwable e) {
        return root(e).getClass().getSimpleName() + ": " + root(e).getMessage();
    }

    /** Whether the factory's connections are cluster connections (renewal batches then never span two hash slots). */
    boolean isCluster() {
        Boolean known = cluster;
        return known != null ? known : (cluster = call("(topology check)", connection -> connection instanceof RedisClusterConnection));
    }
}
