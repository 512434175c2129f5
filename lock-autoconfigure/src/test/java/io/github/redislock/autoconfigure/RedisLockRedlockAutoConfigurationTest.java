package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.AsyncLocker;
import io.github.redislock.Locker;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.RedlockLocker;
import io.github.redislock.testsupport.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class RedisLockRedlockAutoConfigurationTest {

    static final List<RedisServerProcess> masters = new ArrayList<>();

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockRedlockAutoConfiguration.class,
                    RedisLockAutoConfiguration.class, RedisLockAsyncAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    @BeforeAll
    static void startMasters() {
        for (int i = 0; i < 3; i++) {
            masters.add(TestRedis.startNew());
        }
    }

    @AfterAll
    static void stopMasters() {
        masters.forEach(RedisServerProcess::stop);
    }

    @Test
    void listingMastersSwitchesTheLockerToRedlock() {
        application.withPropertyValues("redis-lock.redlock.node-timeout=1s",
                        "redis-lock.redlock.nodes=" + String.join(",", masters.stream().map(RedisServerProcess::redisUri).toList()))
                .run(context -> {
                    assertThat(context).hasSingleBean(Locker.class).doesNotHaveBean(RedisLocker.class).doesNotHaveBean(AsyncLocker.class);
                    RedlockLocker locker = context.getBean(RedlockLocker.class);
                    assertThat(locker.getQuorum()).isEqualTo(2);
                    locker.lock("configured");
                    assertThat(masters).allSatisfy(master -> assertThat(master.command("EXISTS", "lock:configured")).isEqualTo(1L));
                    locker.unlock("configured");
                });
    }

    @Test
    void withoutMastersTheLockerUsesTheApplicationsRedis() {
        application.run(context -> assertThat(context.getBean(Locker.class)).isInstanceOf(RedisLocker.class));
    }

    @Test
    void fewerThanThreeMastersFailStartupNamingTheProperty() {
        application.withPropertyValues("redis-lock.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redlock.nodes needs at least 3 independent Redis masters, but lists 2"));
    }

    @Test
    void anInvalidMasterUrlFailsStartupNamingTheUrl() {
        application.withPropertyValues("redis-lock.redlock.nodes=redis://127.0.0.1:1,http://127.0.0.1:2,redis://127.0.0.1:3")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redlock.nodes has an invalid URL 'http://127.0.0.1:2'"));
    }

    @Test
    void anInvalidMasterUrlIsNamedWithoutItsPassword() {
        application.withPropertyValues("redis-lock.redlock.nodes=redis://127.0.0.1:1,http://user:secret@127.0.0.1:2,redis://127.0.0.1:3")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redlock.nodes has an invalid URL 'http://127.0.0.1:2'")
                        .message().doesNotContain("secret"));
    }
}
