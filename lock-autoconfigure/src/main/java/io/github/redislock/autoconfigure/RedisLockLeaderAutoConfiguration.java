package io.github.redislock.autoconfigure;

import io.github.redislock.LeaderElection;
import io.github.redislock.LockObserver;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.leader.LockerLeaderElection;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import java.util.stream.Stream;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Leader election on the Locker's Redis: a {@link LeaderElection} whose roles are locks kept alive by a
 * watchdog with the leadership lease ({@code redis-lock.leader.*}) instead of the Locker's watchdog
 * timeout. Needs a {@link RedisLocker} (not Redlock); backs off when the application defines its own election.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnBean(RedisLocker.class)
@Conditional(RedisLockRedlockAutoConfiguration.OnNoRedlockNodes.class)
@EnableConfigurationProperties({RedisLockProperties.class, RedisLockLeaderProperties.class})
public class RedisLockLeaderAutoConfiguration {

    @Bean
    LeaseLockers lockLeaseLockers(RedisLocker locker, LockRedis redis, RedisLockProperties properties, ApplicationEventPublisher events,
                                  ObjectProvider<LockObserver> observer) {
        return new LeaseLockers(locker, lease -> RedisLockAutoConfiguration.builder(redis, properties, events, observer)
                .watchdogTimeout(lease).build());
    }

    /** The lease lockers close with the application's lockers, before the connection factory stops. */
    @Bean
    LockersLifecycle lockLeaseLockersLifecycle(ApplicationContext context, LeaseLockers lockers, LockRedis redis) {
        return new LockersLifecycle(context, lockers::built, Stream::empty, redis.connectionFactory(), 1);
    }

    /** Closed for good when the context closes, after {@link #leaderElectionLifecycle} stopped it. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LeaderElection.class)
    LockerLeaderElection leaderElection(LeaseLockers lockers, RedisLockLeaderProperties properties, ApplicationEventPublisher events) {
        return new LockerLeaderElection(role -> lockers.forLease(properties.leaseOf(role)), events);
    }

    /**
     * The election stops one phase before its lockers close: its leaders hand their roles on first. A
     * stop is no close: a context that stops to start again ({@code context.stop()}, a checkpoint) leads
     * its roles again once started, and only the context's close ends the election.
     */
    @Bean
    BeforeRedisStops leaderElectionLifecycle(ObjectProvider<LockerLeaderElection> election, LockRedis redis) {
        return new BeforeRedisStops(redis.connectionFactory(), 2) {
            @Override
            public void start() {
                super.start();
                election.ifAvailable(LockerLeaderElection::start);
            }

            @Override
            void beforeRedisStops() {
                election.ifAvailable(LockerLeaderElection::stop);
            }
        };
    }
}
