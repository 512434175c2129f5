package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A role's lease that is too short stops startup with the reason naming that role's property, not a pattern of it. */
class LeaderRoleLeaseValidationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockLeaderAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void aRoleLeaseTooShortFailsStartupNamingThatRolesProperty() {
        contextRunner.withPropertyValues("redis-lock.leader.roles.orders-poller.lease=50ms")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.leader.roles.orders-poller.lease must be at least 100ms"));
    }
}
