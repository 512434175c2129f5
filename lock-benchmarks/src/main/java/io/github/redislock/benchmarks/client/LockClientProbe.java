package io.github.redislock.benchmarks.client;

import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.bench.LockInternals;
import io.github.redislock.core.pubsub.ChannelSubscriber;
import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockScript;
import io.github.redislock.core.script.ShardedChannels;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.LockObserver;
import io.lettuce.core.RedisAsyncCommandsImpl;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/**
 * A test hook for measuring the client's own work per lock and unlock, without Redis: a
 * {@link RedisLocker} wired as the auto-configuration wires it (watchdog, release subscriptions,
 * the {@code LockCommands} that encode every script call), whose script calls are answered in memory
 * instead of being sent: every acquire as an uncontended first hold, every release as freeing the
 * lock, every watchdog renewal as nothing lost. What a benchmark of it times is everything between
 * the caller and the network (argument encoding, hold bookkeeping, Lettuce's building and encoding
 * of each {@code EVALSHA}, the wait for its reply) and nothing of the network or of Redis,
 * so a regression of the client shows without Redis's noise. lock-benchmarks' {@code ClientCostBenchmark}
 * uses it.
 *
 * <p>Not for applications: the locker it gives locks nothing, and any call it cannot answer as an
 * uncontended pair (a blocked or reentrant acquisition, another kind of lock) fails with
 * {@link UnsupportedOperationException}.
 */
public final class LockClientProbe implements AutoCloseable {

    /** The fencing token every ask for one draws ({@code token.lua}): a clock value in microseconds, as Redis would give. */
    public static final long TOKEN = 1_795_435_892_693_675L;

    /** Where each call's arguments are encoded, as the event loop would, to read its script: one buffer per thread, kept. */
    private static final ThreadLocal<ByteBuf> ENCODED = ThreadLocal.withInitial(() -> Unpooled.buffer(512));
    private static final Map<LockScript, ByteBuf> SHA1 = new EnumMap<>(Map.of(LockScript.ACQUIRE, sha1(LockScript.ACQUIRE),
            LockScript.RELEASE, sha1(LockScript.RELEASE), LockScript.RENEW, sha1(LockScript.RENEW), LockScript.TOKEN, sha1(LockScript.TOKEN)));

    private final AtomicLong scriptCalls = new AtomicLong();
    private final AtomicLong renewalCalls = new AtomicLong();
    private final RedisLocker locker;

    private LockClientProbe(String keyPrefix, Duration watchdogTimeout) {
        LockCommands commands = new LockCommands(answeringInMemory());
        LockWatchdog watchdog = new LockWatchdog(watchdogTimeout, commands, LockObserver.NONE);
        ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(ChannelSubscriber.of(null, ShardedChannels.classic()), keyPrefix + "__anchor"); // never joined: nothing ever waits
        this.locker = LockInternals.locker(commands, watchdog, subscriptions, keyPrefix, event -> {
        }, LockObserver.NONE);
    }

    /** A probe with the default watchdog timeout (30 s) and the given key prefix. */
    public static LockClientProbe uncontended(String keyPrefix) {
        return uncontended(keyPrefix, Duration.ofSeconds(30));
    }

    /** A probe whose watchdog renews every third of {@code watchdogTimeout}. */
    static LockClientProbe uncontended(String keyPrefix, Duration watchdogTimeout) {
        return new LockClientProbe(keyPrefix, watchdogTimeout);
    }

    /** The locker to time; use it for uncontended {@code lock}/{@code tryLock} and the matching {@code unlock} only. */
    public RedisLocker locker() {
        return locker;
    }

    /**
     * Acquire and release script calls the locker made so far: a benchmark checks that each pair went the
     * whole way (two per pair). The watchdog's renewals are not among them: a tick can fall on a held lock
     * at any time of a run.
     */
    public long scriptCalls() {
        return scriptCalls.get();
    }

    /** Renewal script calls of the locker's watchdog so far. */
    long renewalCalls() {
        return renewalCalls.get();
    }

    @Override
    public void close() {
        locker.close(); // closes its watchdog and subscriptions too
    }

    /**
     * Lettuce's own asynchronous commands over a connection that answers every command it is handed in memory, so what the
     * client builds for a script call (Lettuce's arguments, output and future) and their encoding are measured, as they are
     * paid against Redis; the network is not.
     */
    private RedisAsyncCommands<byte[], byte[]> answeringInMemory() {
        StatefulRedisConnection<byte[], byte[]> inMemory = proxy(StatefulRedisConnection.class, (p, method, args) -> switch (method.getName()) {
            case "isOpen" -> true;
            case "dispatch" -> args[0] instanceof RedisCommand<?, ?, ?> command ? answer(command) : unsupported(method);
            default -> unsupported(method);
        });
        return new RedisAsyncCommandsImpl<>(inMemory, ByteArrayCodec.INSTANCE);
    }

    /** Answers through the command's own output, as Lettuce decodes Redis's reply: the library asked for its shape. */
    private RedisCommand<?, ?, ?> answer(RedisCommand<?, ?, ?> command) {
        if (command.getType() != CommandType.EVALSHA || !(command instanceof CompletableFuture<?>)) {
            throw new UnsupportedOperationException("LockClientProbe answers EVALSHA only, not " + command.getType());
        }
        Long integer = answer(command.getArgs());
        if (integer == null) {
            command.getOutput().multi(0);
        } else {
            command.getOutput().set(integer);
        }
        command.complete();
        return command;
    }

    /**
     * Reads the script's SHA-1 where Lettuce sends it, after {@code $40\r\n}, and answers as Redis does: an acquisition with 1 (a
     * free lock, no token drawn), an ask for the token with {@link #TOKEN}, a short release with 0 (freed), a renewal with an empty
     * table (null here: nothing lost).
     */
    private Long answer(CommandArgs<?, ?> evalsha) {
        ByteBuf encoded = ENCODED.get().clear();
        evalsha.encode(encoded);
        if (isScript(encoded, LockScript.ACQUIRE)) {
            scriptCalls.incrementAndGet();
            return 1L;
        }
        if (isScript(encoded, LockScript.TOKEN)) {
            return TOKEN;
        }
        if (isScript(encoded, LockScript.RELEASE)) {
            scriptCalls.incrementAndGet();
            return 0L;
        }
        if (isScript(encoded, LockScript.RENEW)) {
            renewalCalls.incrementAndGet();
            return null;
        }
        throw new UnsupportedOperationException("LockClientProbe answers the acquire, release and renew scripts only, not " + evalsha.toCommandString());
    }

    private static ByteBuf sha1(LockScript script) {
        return Unpooled.wrappedBuffer(script.sha1Hex().getBytes(StandardCharsets.US_ASCII));
    }

    private static boolean isScript(ByteBuf encoded, LockScript script) {
        return encoded.readableBytes() > 45 && ByteBufUtil.equals(encoded, 5, SHA1.get(script), 0, 40);
    }

    private static Object unsupported(Method method) {
        throw new UnsupportedOperationException("LockClientProbe's in-memory Redis client has no " + method.getName());
    }

    /** @param handler answers the interface's methods; {@code Object}'s own (toString, equals, hashCode) are the proxy's */
    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<?> type, InvocationHandler handler) {
        InvocationHandler withObjectMethods = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "LockClientProbe's in-memory " + type.getSimpleName();
                };
            }
            return handler.invoke(proxy, method, args);
        };
        return (T) Proxy.newProxyInstance(LockClientProbe.class.getClassLoader(), new Class<?>[] {type}, withObjectMethods);
    }
}
