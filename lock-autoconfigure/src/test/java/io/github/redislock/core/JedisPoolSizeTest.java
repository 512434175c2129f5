package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockRedisException;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import redis.clients.jedis.JedisPoolConfig;

/**
 * On Jedis the pub/sub connection is borrowed from the application's pool for as long as something waits, so a pool
 * that has no connection left besides it leaves every lock call waiting for one (for ever, by the pool's default
 * max-wait), the holder's unlock included. A wait that would take the pool's last connection is refused instead,
 * naming the setting to raise, and the calls keep their connection.
 *
 * <p>Fails on 65b3147: the blocked try never comes back within 10 s (TimeoutException), the watchdog cannot renew the
 * held lock, and the holder's unlock waits for a connection.
 */
class JedisPoolSizeTest {

    private static final Duration BOUND = Duration.ofSeconds(10);

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "jedis-pool-" + UUID.randomUUID();
    private JedisConnectionFactory factory;
    private final List<RedisLocker> lockers = new ArrayList<>();

    @AfterEach
    void close() {
        lockers.forEach(RedisLocker::close);
        if (factory != null) {
            LockerFixture.destroyWithin(factory, Duration.ofSeconds(20));
        }
    }

    @Test
    void aWaitThatWouldTakeTheLastPooledConnectionFailsNamingThePoolSizeAndTheHolderStillReleases() throws Exception {
        RedisLocker locker = lockerOnAPoolOf(1);
        locker.lock(key);

        Throwable refused = waitFor(key, locker);

        assertThat(refused).isInstanceOf(LockRedisException.class).hasMessageContaining("spring.data.redis.jedis.pool.max-active")
                .hasMessageContaining("allow at least 2");
        assertReleasedWithinTheBound(locker, key);
    }

    @Test
    void aSecondLockerWhosePubSubConnectionWouldTakeThePoolsLastOneIsRefusedAndTheFirstKeepsWorking() throws Exception {
        RedisLocker first = lockerOnAPoolOf(2);
        RedisLocker second = locker();
        first.lock(key);
        assertThat(waitFor(key, first)).as("the first locker's wait: a pool of 2 keeps one connection for the calls")
                .isInstanceOf(LockAcquisitionException.class);
        second.lock(key + "-other");

        Throwable refused = waitFor(key + "-other", second);

        assertThat(refused).isInstanceOf(LockRedisException.class).hasMessageContaining("spring.data.redis.jedis.pool.max-active")
                .hasMessageContaining("allow at least 3");
        assertReleasedWithinTheBound(second, key + "-other");
        assertReleasedWithinTheBound(first, key);
    }

    private RedisLocker lockerOnAPoolOf(int connections) {
        JedisPoolConfig pool = new JedisPoolConfig();
        pool.setMaxTotal(connections); // and the default max-wait: for ever
        JedisClientConfiguration client = JedisClientConfiguration.builder().usePooling().poolConfig(pool).build();
        factory = new JedisConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()), client);
        factory.afterPropertiesSet();
        factory.start();
        return locker();
    }

    private RedisLocker locker() {
        RedisLocker locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(Duration.ofSeconds(3)).build();
        lockers.add(locker);
        return locker;
    }

    /** What a blocked try on another thread ends with, within the bound (a 500 ms wait). */
    private static Throwable waitFor(String key, RedisLocker locker) throws Exception {
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> catchThrowable(() -> {
            if (!locker.tryLock(key, 500, 3000, TimeUnit.MILLISECONDS)) {
                throw new LockAcquisitionException(key, Duration.ofMillis(500));
            }
        }));
        return outcome.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    }

    /** Unlocks on the holding thread (the wait before it came back, so a connection is free), then looks for the lock's keys. */
    private void assertReleasedWithinTheBound(RedisLocker locker, String key) throws Exception {
        locker.unlock(key);
        StringRedisTemplate redis = new StringRedisTemplate(factory);
        assertThat(CompletableFuture.supplyAsync(() -> redis.keys(LockerFixture.PREFIX + "*" + key + "*")).get(BOUND.toSeconds(), TimeUnit.SECONDS))
                .as("keys of the lock").isEmpty();
    }
}
