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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.LockObserver;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * A test hook for measuring the client's own work per lock and unlock, without Redis: a
 * {@link RedisLocker} wired as the auto-configuration wires it (watchdog, release subscriptions,
 * the {@code LockCommands} that encode every script call), whose script calls are answered in memory
 * instead of being sent: every acquire as an uncontended first hold, every release as freeing the
 * lock, every watchdog renewal as nothing lost. What a benchmark of it times is everything between
 * the caller and the Redis client (argument encoding, hold bookkeeping, script dispatch up to the
 * client's {@code EVALSHA} call and the wait for its reply) and nothing of the network or of Redis,
 * so a regression of the client shows without Redis's noise. lock-benchmarks' {@code ClientCostBenchmark}
 * uses it.
 *
 * <p>Not for applications: the locker it gives locks nothing, and any call it cannot answer as an
 * uncontended pair (a blocked or reentrant acquisition, another kind of lock) fails with
 * {@link UnsupportedOperationException}.
 */
public final class LockClientProbe implements AutoCloseable {

    /** The fencing token every acquisition gets: a clock value in microseconds, as Redis would give. */
    public static final long TOKEN = 1_795_435_892_693_675L;

    private static final RedisFuture<List<Object>> ACQUIRED = completed(List.of(1L, 1L, TOKEN));
    private static final RedisFuture<List<Object>> FREED = completed(List.of(0L));
    private static final RedisFuture<List<Object>> NOTHING_LOST = completed(List.of());

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

    /** Lettuce's asynchronous commands, as far as the lock scripts use them: EVALSHA, and the connection's open state. */
    @SuppressWarnings("unchecked")
    private RedisAsyncCommands<byte[], byte[]> answeringInMemory() {
        StatefulRedisConnection<byte[], byte[]> open = proxy(StatefulRedisConnection.class, (p, method, args) -> switch (method.getName()) {
            case "isOpen" -> true;
            default -> unsupported(method);
        });
        return proxy(RedisAsyncCommands.class, (p, method, args) -> switch (method.getName()) {
            case "evalsha" -> answer((String) args[0]);
            case "getStatefulConnection" -> open;
            default -> unsupported(method);
        });
    }

    private RedisFuture<List<Object>> answer(String sha1) {
        if (sha1.equals(LockScript.ACQUIRE.sha1Hex())) {
            scriptCalls.incrementAndGet();
            return ACQUIRED;
        }
        if (sha1.equals(LockScript.RELEASE.sha1Hex())) {
            scriptCalls.incrementAndGet();
            return FREED;
        }
        if (sha1.equals(LockScript.RENEW.sha1Hex())) {
            renewalCalls.incrementAndGet();
            return NOTHING_LOST;
        }
        throw new UnsupportedOperationException("LockClientProbe answers the acquire, release and renew scripts only, not script " + sha1);
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

    private static RedisFuture<List<Object>> completed(List<Object> reply) {
        CompletedReply<List<Object>> future = new CompletedReply<>();
        future.complete(reply);
        return future;
    }

    /** A reply that is in before anyone asks; shared by all calls, as completed futures never change. */
    private static final class CompletedReply<T> extends CompletableFuture<T> implements RedisFuture<T> {

        @Override
        public String getError() {
            return null;
        }

        @Override
        public boolean await(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
