package io.github.redislock.reliability;

import java.time.Duration;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A private {@code redis-server} for one test class (a static {@code @RegisterExtension}), for faults that would disturb
 * the classes sharing {@code TestRedis} (a flushed script cache, a memory limit), and two instances on it per test:
 * {@code instance} on Lettuce or Jedis ({@link #connect}), {@code other} on Lettuce (the holder, say). Both close after each test; the server after the class.
 */
final class PrivateRedisInstances implements AfterEachCallback, AfterAllCallback {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(3);

    final RedisServerProcess redis;
    LockerFixture instance;
    LockerFixture other;

    PrivateRedisInstances(String... serverArgs) {
        redis = RedisServerProcess.start(serverArgs);
    }

    /** Opens both instances' connections now, while Redis still takes them in. */
    void connect(boolean jedis, String key) {
        instance = jedis ? LockerFixture.connectJedis(redis.host(), redis.port(), WATCHDOG_TIMEOUT)
                : LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
        other = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
        instance.locker.isLocked(key);
        other.locker.isLocked(key);
    }

    /** The plain lock's wait queue, as a direct connection reads it. */
    static String queue(String key) {
        return LockerFixture.PREFIX + "{" + LockerFixture.PREFIX + key + "}:wait-queue";
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            if (instance != null) {
                instance.close();
            }
        } finally {
            if (other != null) {
                other.close();
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        redis.stop();
    }
}
