package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;

import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockObservationAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

/** How @DistributedLock meets the other parts: fencing tokens, multi-locks and metrics. */
class DistributedLockIntegrationTest {

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.METRICS), AopAutoConfiguration.class,
                    RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class, RedisLockObservationAutoConfiguration.class))
            .withUserConfiguration(Ledger.Configuration.class)
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void anAnnotatedMethodReadsItsFencingTokenAndEachNewHoldGetsALargerOne() {
        application.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            String account = "acc-" + UUID.randomUUID();
            long first = ledger.post(account);
            long second = ledger.post(account);
            assertThat(first).isPositive();
            assertThat(second).isGreaterThan(first);
            assertThatThrownBy(CurrentLock::fencingToken).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("No @DistributedLock method is running");
        });
    }

    @Test
    void severalKeysAreTakenAsOneMultiLockAndEachHasAToken() {
        application.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            String from = "from-" + UUID.randomUUID();
            String to = "to-" + UUID.randomUUID();
            List<Long> tokens = ledger.transfer(from, to);
            assertThat(tokens).hasSize(2).allSatisfy(token -> assertThat(token).isPositive());
            Locker locker = context.getBean(Locker.class);
            assertThat(locker.isLocked("account:" + from)).isFalse();
            assertThat(locker.isLocked("account:" + to)).isFalse();
        });
    }

    @Test
    void metricsNameTheLockAfterTheAnnotationNotTheKey() {
        application.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            ledger.post("acc-" + UUID.randomUUID());
            ledger.audit("acc-" + UUID.randomUUID());

            assertThat(meters.get("redis.lock.acquire").tags("lock.name", "DistributedLockIntegrationTest.Ledger#post", "lock.result", "acquired").timer().count()).isEqualTo(1);
            assertThat(meters.get("redis.lock.hold").tags("lock.name", "DistributedLockIntegrationTest.Ledger#post").timer().count()).isEqualTo(1);
            assertThat(meters.get("redis.lock.acquire").tags("lock.name", "ledger-audit").timer().count()).isEqualTo(1);
        });
    }

    static class Ledger {
        @Autowired
        Locker locker;

        @DistributedLock(key = "'account:' + #account")
        public long post(String account) {
            long token = CurrentLock.fencingToken();
            assertThat(token).isEqualTo(locker.fencingToken("account:" + account));
            return token;
        }

        @DistributedLock(keys = {"'account:' + #from", "'account:' + #to"})
        public List<Long> transfer(String from, String to) {
            assertThatThrownBy(CurrentLock::fencingToken).isInstanceOf(IllegalStateException.class).hasMessageContaining("name the key");
            return List.of(CurrentLock.fencingToken("account:" + from), CurrentLock.fencingToken("account:" + to));
        }

        @DistributedLock(key = "'audit:' + #account", name = "ledger-audit")
        public void audit(String account) {
        }

        @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
        static class Configuration {
            @Bean
            Ledger ledger() {
                return new Ledger();
            }
        }
    }
}
