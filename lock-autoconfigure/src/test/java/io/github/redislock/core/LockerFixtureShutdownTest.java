package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A fixture whose connection factory does not shut down in time fails with the frame the shutdown waits in. */
class LockerFixtureShutdownTest {

    @Test
    void aShutdownPastItsBoundNamesTheFrameItWaitsIn() throws Exception {
        CountDownLatch released = new CountDownLatch(1);
        LettuceConnectionFactory hanging = new LettuceConnectionFactory(new RedisStandaloneConfiguration(TestRedis.shared().host(),
                TestRedis.shared().port())) {
            @Override
            public void destroy() {
                awaitRelease(released);
                super.destroy();
            }
        };
        hanging.afterPropertiesSet();
        hanging.start();
        try {
            assertThatThrownBy(() -> LockerFixture.destroyWithin(hanging, Duration.ofMillis(300)))
                    .hasMessageContaining("did not shut down within PT0.3S")
                    .hasMessageContaining("\"fixture-connection-shutdown\" WAITING")
                    .hasMessageContaining(LockerFixtureShutdownTest.class.getName() + ".awaitRelease");
        } finally {
            released.countDown();
        }
    }

    private static void awaitRelease(CountDownLatch released) {
        try {
            released.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
