package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.Map;

import io.github.redislock.Candidacy;
import io.github.redislock.LeaderElection;
import io.github.redislock.LeadershipListener;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

/**
 * A role's lease property whose role name Spring Boot cannot bind as written (a lock key such as
 * {@code orders:poller} or {@code orders.poller} outside brackets) is refused, naming the property to
 * write instead; it never leaves the role on the default lease unnoticed.
 */
class RoleLeasePropertyNamesTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockLeaderAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void aRoleWhoseColonTheBinderDroppedIsRefusedWhenItJoinsNamingTheBracketedProperty() {
        // As YAML gives it ("roles: { orders:poller: { lease: 1s } }"): Spring Boot binds the role as "orderspoller".
        withProperty("redis-lock.leader.roles.orders:poller.lease", "1s").run(context -> assertThatIllegalStateException()
                .isThrownBy(() -> context.getBean(LeaderElection.class).join("orders:poller", new LeadershipListener() {
                    @Override
                    public void granted(Candidacy candidacy, long term) {
                    }

                    @Override
                    public void revoked(Candidacy candidacy, long term, String reason) {
                    }
                }))
                .withMessageContaining("redis-lock.leader.roles[orders:poller].lease")
                .withMessageContaining("'orderspoller'"));
    }

    @Test
    void aRoleNameWithADotOutsideBracketsStopsStartupNamingTheProperty() {
        withProperty("redis-lock.leader.roles.orders.poller.lease", "1s").run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("redis-lock.leader.roles.orders.poller.lease"));
    }

    /** Named as it must be written: the same name without brackets would be bound under another role, "orderspoller". */
    @Test
    void aBracketedRoleLeaseTooShortStopsStartupNamingThePropertyWithItsBrackets() {
        withProperty("redis-lock.leader.roles[orders:poller].lease", "50ms").run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("redis-lock.leader.roles[orders:poller].lease must be at least 100ms"));
    }

    private ApplicationContextRunner withProperty(String name, String value) {
        return contextRunner.withInitializer(context -> context.getEnvironment().getPropertySources()
                .addFirst(new MapPropertySource("role-lease", Map.of(name, value))));
    }
}
