package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.redislock.Candidacy;
import io.github.redislock.HeldLock;
import io.github.redislock.LeaderElection;
import io.github.redislock.LeadershipListener;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

class RedisLockLeaderAutoConfigurationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockLeaderAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void aRoleIsHeldWithTheLeadershipLeaseNotTheWatchdogTimeoutAndReleasedWhenTheContextCloses() throws Exception {
        String role = "leader-" + UUID.randomUUID();
        String configured = "leader-" + UUID.randomUUID();
        try (Redis redis = new Redis()) {
            contextRunner.withPropertyValues("redis-lock.leader.roles." + configured + ".lease=1s").run(context -> {
                assertThat(context).hasSingleBean(LeaderElection.class);
                assertThat(leadAndReadLease(context.getBean(LeaderElection.class), role, redis)).isBetween(2000L, 3000L);
                assertThat(leadAndReadLease(context.getBean(LeaderElection.class), configured, redis)).isBetween(1L, 1000L);
            });
            assertThat(redis.template.hasKey("lock:" + role)).as("handed on when the context closed").isFalse();
        }
    }

    /**
     * docs/leader-election.md: "Each distinct lease costs one Locker". Roles of one lease are held by one Locker, a role with a lease
     * of its own by another, and a role whose lease is the watchdog timeout by the Locker bean itself.
     */
    @Test
    void rolesOfOneLeaseShareOneLockerAndALeaseEqualToTheWatchdogTimeoutUsesTheLockerBean() throws Exception {
        String first = "leader-" + UUID.randomUUID();
        String second = "leader-" + UUID.randomUUID();
        String shortLease = "leader-" + UUID.randomUUID();
        String watchdogLease = "leader-" + UUID.randomUUID();
        try (Redis redis = new Redis()) {
            contextRunner.withPropertyValues("redis-lock.leader.roles." + shortLease + ".lease=2s",
                    "redis-lock.leader.roles." + watchdogLease + ".lease=30s").run(context -> {
                LeaderElection election = context.getBean(LeaderElection.class);
                for (String role : new String[] {first, second, shortLease, watchdogLease}) {
                    leadAndReadLease(election, role, redis);
                }
                List<RedisLocker> built = context.getBean(LeaseLockers.class).built().toList();
                assertThat(built).as("Lockers built for the leases 3s (the default) and 2s").hasSize(2);
                assertThat(built).extracting(locker -> locker.heldLocks().stream().map(HeldLock::key).sorted().toList())
                        .containsExactlyInAnyOrder(Stream.of(first, second).sorted().toList(), List.of(shortLease));
                assertThat(context.getBean(RedisLocker.class).heldLocks()).extracting(HeldLock::key).containsExactly(watchdogLease);
            });
        }
    }

    @Test
    void aContextStoppedAndStartedAgainLeadsItsRolesAgainAndTakesNewCandidates() throws Exception {
        stoppedAndStartedAgainLeadsItsRolesAgainAndTakesNewCandidates(contextRunner);
    }

    /** On Jedis, whose connection pool the stop destroys and the start builds anew. */
    @Test
    void aContextOnJedisStoppedAndStartedAgainLeadsItsRolesAgainAndTakesNewCandidates() throws Exception {
        stoppedAndStartedAgainLeadsItsRolesAgainAndTakesNewCandidates(contextRunner.withPropertyValues("spring.data.redis.client-type=jedis"));
    }

    private static void stoppedAndStartedAgainLeadsItsRolesAgainAndTakesNewCandidates(ApplicationContextRunner application) throws Exception {
        String role = "leader-" + UUID.randomUUID();
        String joinedAfter = "leader-" + UUID.randomUUID();
        try (Redis redis = new Redis()) {
            application.run(context -> {
                LeaderElection election = context.getBean(LeaderElection.class);
                BlockingQueue<Long> grants = new LinkedBlockingQueue<>();
                Candidacy candidacy = election.join(role, new LeadershipListener() {
                    @Override
                    public void granted(Candidacy candidacy, long term) {
                        grants.add(term);
                    }

                    @Override
                    public void revoked(Candidacy candidacy, long term, String reason) {
                    }
                });
                Long firstTerm = grants.poll(5, TimeUnit.SECONDS);
                assertThat(firstTerm).isNotNull();

                context.stop();
                assertThat(redis.template.hasKey("lock:" + role)).as("a stopped context hands its roles on").isFalse();
                context.start();

                assertThat(grants.poll(5, TimeUnit.SECONDS)).as("led again after start()").isNotNull().isGreaterThan(firstTerm);
                assertThat(candidacy.isLeader()).isTrue();
                assertThat(leadAndReadLease(election, joinedAfter, redis)).isPositive();
            });
            assertThat(redis.template.hasKey("lock:" + role)).as("handed on when the context closed").isFalse();
        }
    }

    @Test
    void noElectionWhenTheLockerIsSwitchedOff() {
        contextRunner.withPropertyValues("redis-lock.enabled=false").run(context -> assertThat(context).doesNotHaveBean(LeaderElection.class));
    }

    @Test
    void aLeaseTooShortFailsStartupNamingTheProperty() {
        contextRunner.withPropertyValues("redis-lock.leader.lease=50ms")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("redis-lock.leader.lease"));
    }

    private static long leadAndReadLease(LeaderElection election, String role, Redis redis) throws Exception {
        CompletableFuture<Long> granted = new CompletableFuture<>();
        election.join(role, new LeadershipListener() {
            @Override
            public void granted(Candidacy candidacy, long term) {
                granted.complete(term);
            }

            @Override
            public void revoked(Candidacy candidacy, long term, String reason) {
            }
        });
        granted.get(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.template.hasKey("lock:" + role));
        return redis.template.getExpire("lock:" + role, TimeUnit.MILLISECONDS);
    }

    /** A client of the test Redis that outlives the application context. */
    private static final class Redis implements AutoCloseable {

        final LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(TestRedis.shared().host(), TestRedis.shared().port()));
        final StringRedisTemplate template;

        Redis() {
            factory.afterPropertiesSet();
            factory.start();
            template = new StringRedisTemplate(factory);
        }

        @Override
        public void close() {
            factory.destroy();
        }
    }
}
