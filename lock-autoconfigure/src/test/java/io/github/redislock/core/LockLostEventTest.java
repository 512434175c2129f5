package io.github.redislock.core;

import io.github.redislock.LockLostEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** {@link LockLostEvent} listeners are the application's code: whatever they do, the watchdog goes on renewing. */
class LockLostEventTest {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);

    final CountDownLatch listenerEntered = new CountDownLatch(1);
    final CountDownLatch listenerMayReturn = new CountDownLatch(1);
    LettuceConnectionFactory connectionFactory;
    RedisLocker locker;
    StringRedisTemplate redis;
    String key;

    @BeforeEach
    void connect() {
        connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(TestRedis.shared().host(), TestRedis.shared().port()));
        connectionFactory.afterPropertiesSet();
        connectionFactory.start();
        locker = RedisLocker.builder(connectionFactory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(WATCHDOG_TIMEOUT).events(event -> {
            if (event instanceof LockLostEvent) {
                listenerEntered.countDown();
                try {
                    listenerMayReturn.await(10, TimeUnit.SECONDS); // a listener stuck on a slow call of its own
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }).build();
        redis = new StringRedisTemplate(connectionFactory);
        key = "lost-event-" + UUID.randomUUID();
    }

    @AfterEach
    void disconnect() {
        listenerMayReturn.countDown();
        locker.close();
        connectionFactory.destroy();
    }

    @Test
    void aListenerThatBlocksDoesNotStallTheRenewalOfOtherLocks() throws Exception {
        String lost = key + "-lost";
        String kept = key + "-kept";
        locker.lock(lost);
        locker.lock(kept);
        redis.delete(LockerFixture.PREFIX + lost);

        assertThat(listenerEntered.await(3 * WATCHDOG_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("lost event published").isTrue();
        // Longer than the lease renewals give: only renewals that go on keep the other lock.
        await().during(WATCHDOG_TIMEOUT.multipliedBy(2)).atMost(WATCHDOG_TIMEOUT.multipliedBy(3))
                .until(() -> Boolean.TRUE.equals(redis.hasKey(LockerFixture.PREFIX + kept)));
        locker.unlock(kept);
        assertThat(redis.hasKey(LockerFixture.PREFIX + kept)).isFalse();
    }
}
