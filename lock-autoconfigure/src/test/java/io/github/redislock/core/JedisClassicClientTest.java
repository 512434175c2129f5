package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.util.ReflectionUtils;

/**
 * Every kind of lock on Spring Data Redis 4's {@code JedisConnectionFactory} in its classic mode
 * ({@code setUseUnifiedJedis(false)}: a {@code Jedis} per connection, as on Spring Data Redis 3, instead of the
 * default {@code UnifiedJedis} client): the scripts go through the classic connection and a waiter of each kind
 * is woken by the holder's release through pub/sub, long before the holder's watchdog lease could end.
 *
 * <p>The switch exists on Spring Data Redis 4 only (Boot 4.1); on 3.5 the classic mode is the only one and
 * {@link JedisLockerTest} covers it.
 */
class JedisClassicClientTest {

    /** Far beyond {@link LockerFixture#WOKEN_WITHIN}: a waiter that takes the lock sooner was woken by the release. */
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

    private static JedisConnectionFactory factory;
    private RedisLocker holder;
    private RedisLocker waiter;
    private final String key = "jedis-classic-" + UUID.randomUUID();

    @BeforeAll
    static void connect() {
        factory = new JedisConnectionFactory(new RedisStandaloneConfiguration(TestRedis.shared().host(), TestRedis.shared().port()),
                JedisClientConfiguration.builder().readTimeout(Duration.ofSeconds(5)).usePooling().build());
        var useUnified = ReflectionUtils.findMethod(JedisConnectionFactory.class, "setUseUnifiedJedis", boolean.class);
        assumeTrue(useUnified != null, "Spring Data Redis 4's switch to the classic Jedis client");
        ReflectionUtils.invokeMethod(useUnified, factory, false);
        factory.afterPropertiesSet();
        factory.start();
        assertThat(ReflectionUtils.invokeMethod(ReflectionUtils.findMethod(JedisConnectionFactory.class, "isUseUnifiedJedis"), factory))
                .as("the factory uses the classic client").isEqualTo(false);
    }

    @AfterAll
    static void disconnect() {
        if (factory != null) {
            LockerFixture.destroyWithin(factory, Duration.ofSeconds(20));
        }
    }

    @BeforeEach
    void startInstances() {
        holder = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(WATCHDOG_TIMEOUT).build();
        waiter = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(WATCHDOG_TIMEOUT).build();
    }

    @AfterEach
    void stopInstances() {
        holder.close();
        waiter.close();
    }

    @Test
    void aPlainLockWaiterIsWokenByTheRelease() throws Exception {
        holder.lock(key);

        assertWokenByTheRelease(() -> holder.unlock(key), blockingWait(waiter.getLock(key)));
    }

    @Test
    void aFairLockWaiterIsWokenByTheRelease() throws Exception {
        RedisLock held = holder.getFairLock(key);
        held.lock();

        assertWokenByTheRelease(held::unlock, blockingWait(waiter.getFairLock(key)));
    }

    @Test
    void aWriterWaitingForAReaderIsWokenByTheReadersRelease() throws Exception {
        RedisReadWriteLock held = holder.getReadWriteLock(key);
        held.readLock().lock();
        RedisLock secondReader = waiter.getReadWriteLock(key).readLock();
        assertThat(CompletableFuture.supplyAsync(() -> {
            boolean shared = secondReader.tryLock();
            if (shared) {
                secondReader.unlock();
            }
            return shared;
        }).get(5, TimeUnit.SECONDS)).as("readers share the lock").isTrue();

        assertWokenByTheRelease(held.readLock()::unlock, blockingWait(waiter.getReadWriteLock(key).writeLock()));
    }

    @Test
    void anAsyncWaiterIsWokenByTheRelease() throws Exception {
        holder.lock(key);
        try (RedisAsyncLocker async = new RedisAsyncLocker(waiter)) {
            assertWokenByTheRelease(() -> holder.unlock(key), () -> async.acquire(key, Duration.ofSeconds(20), Duration.ofSeconds(10))
                    .thenCompose(handle -> async.release(handle).thenApply(released -> true)));
        }
    }

    @Test
    void aReactiveWaiterIsWokenByTheRelease() throws Exception {
        holder.lock(key);
        try (RedisAsyncLocker async = new RedisAsyncLocker(waiter)) {
            RedisReactiveLocker reactive = new RedisReactiveLocker(async);
            assertWokenByTheRelease(() -> holder.unlock(key), () -> reactive.acquire(key, Duration.ofSeconds(20), Duration.ofSeconds(10))
                    .flatMap((LockHandle handle) -> reactive.release(handle).thenReturn(true)).toFuture());
        }
    }

    /** A thread that waits up to 20 s for {@code lock}, then releases it; true when it got it. */
    private static Supplier<CompletableFuture<Boolean>> blockingWait(RedisLock lock) {
        return () -> CompletableFuture.supplyAsync(() -> {
            try {
                boolean acquired = lock.tryLock(20, TimeUnit.SECONDS);
                if (acquired) {
                    lock.unlock();
                }
                return acquired;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /** Starts the wait, lets it block on the held lock, releases, and expects the waiter to have taken it soon after. */
    private void assertWokenByTheRelease(Runnable release, Supplier<CompletableFuture<Boolean>> wait) throws Exception {
        CompletableFuture<Boolean> acquired = wait.get();
        TimeUnit.MILLISECONDS.sleep(300); // blocked and subscribed meanwhile; a wake-up missed would leave it until the 30 s lease
        assertThat(acquired).as("still waiting while the lock is held").isNotDone();

        long released = System.nanoTime();
        release.run();

        assertThat(acquired.get(20, TimeUnit.SECONDS)).as("acquired").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken by the release").isLessThan(LockerFixture.WOKEN_WITHIN);
    }
}
