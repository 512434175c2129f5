package io.github.redislock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.function.Supplier;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.test.RunningRedisServer;
import io.github.redislock.test.WithRedisServer;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * An application tested the way the testing guide shows: {@code @SpringBootTest} with
 * {@link WithRedisServer}, nothing else. Its {@code @DistributedLock} must take its lock in the server
 * the extension started, which is what the application's Redis properties name. Compiled and run on
 * both Boot lines (Spring Framework 7 here, 6 in lock-autoconfigure-boot3).
 */
@SpringBootTest(classes = WithRedisServerApplicationTest.Application.class,
        properties = "spring.data.redis.port=1")
@WithRedisServer
class WithRedisServerApplicationTest {

    @Autowired
    Checkout checkout;

    @Autowired
    Environment environment;

    @Test
    void theLockIsTakenInTheStartedServer(RunningRedisServer redis) {
        String order = "order-" + UUID.randomUUID();

        Object whileHeld = checkout.whileLocked(order, () -> redis.command("EXISTS", "lock:" + order));

        assertThat(whileHeld).isEqualTo(1L);
        assertThat(redis.command("EXISTS", "lock:" + order)).isEqualTo(0L);
    }

    @Test
    void theApplicationsRedisPropertiesNameTheStartedServer(RunningRedisServer redis) {
        assertThat(environment.getProperty("spring.data.redis.host")).isEqualTo(redis.host());
        assertThat(environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(redis.port());
        assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Checkout.class)
    static class Application {
    }

    /** A service whose method runs under a lock per order. */
    static class Checkout {

        @DistributedLock(key = "#order")
        <T> T whileLocked(String order, Supplier<T> inside) {
            return inside.get();
        }
    }
}
