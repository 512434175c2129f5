package io.github.redislock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockIntegrationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockLeaderAutoConfiguration;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A graceful shutdown of an application whose Spring Integration leader runs on our registry: the role
 * must pass to the next instance at once, not when the role's lease runs out. The initiator's
 * {@code stop()} only interrupts its thread, which unlocks afterwards, while the context goes on
 * stopping; the lockers that close before Redis stops must still let that unlock through.
 */
class LeaderInitiatorShutdownTest {

    /** The role's lease: how long the role would stay locked after a shutdown that failed to unlock it. */
    private static final Duration ROLE_LEASE = Duration.ofSeconds(3);

    private final String role = "shutdown-role-" + UUID.randomUUID();
    /** A key on the role's own locker (the same lease), which a busy leader tries to learn that this locker closes. */
    private final String probe = "shutdown-probe-" + UUID.randomUUID();
    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockLeaderAutoConfiguration.class,
                    RedisLockIntegrationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port(),
                    "redis-lock.leader.roles." + role + ".lease=" + ROLE_LEASE.toMillis() + "ms",
                    "redis-lock.leader.roles." + probe + ".lease=" + ROLE_LEASE.toMillis() + "ms");

    private final LockerFixture next = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), ROLE_LEASE);
    private final BlockingQueue<AbstractLeaderEvent> nextEvents = new LinkedBlockingQueue<>();
    private LockRegistryLeaderInitiator nextInitiator;

    @AfterEach
    void stopTheNextInstance() {
        if (nextInitiator != null) {
            nextInitiator.stop();
        }
        next.close();
    }

    @Test
    void aClosedLeaderHandsItsRoleToTheNextInstanceAtOnce() {
        application.run(context -> {
            LockRegistryLeaderInitiator leader = startLeader(context, new DefaultCandidate("closing", role));
            awaitTheNextInstanceQueued(context);

            Duration handedOn = closeAndTimeTheHandOver(context);

            assertThat(handedOn).as("the role passed on by the unlock, not by its lease of %s", ROLE_LEASE).isLessThan(ROLE_LEASE.dividedBy(3));
            assertThat(leader.isRunning()).isFalse();
        });
    }

    /**
     * A leader still at work when the shutdown interrupts it (work that does not answer an interrupt)
     * unlocks only once that work ends, after the lockers have started to close: the unlock still reaches Redis.
     */
    @Test
    void aLeaderStillWorkingWhenItsLockersStartClosingStillHandsItsRoleOnAtOnce() {
        application.run(context -> {
            Lock probing = context.getBean(LockRegistry.class).obtain(probe);
            startLeader(context, new DefaultCandidate("busy", role) {
                @Override
                public void onGranted(Context leadership) {
                    workUntilTheLockerCloses(probing);
                }
            });
            awaitTheNextInstanceQueued(context);

            Duration handedOn = closeAndTimeTheHandOver(context);

            assertThat(handedOn).as("the role passed on by the unlock, not by its lease of %s", ROLE_LEASE).isLessThan(ROLE_LEASE.dividedBy(3));
        });
    }

    /**
     * A context stopped to start again ({@code context.stop()}, a checkpoint) stops its initiator: the role
     * passes on at once, as on a close, and the started context runs for it again and leads once it is free.
     */
    @Test
    void aStoppedLeaderHandsItsRoleToTheNextInstanceAtOnceAndLeadsAgainAfterTheContextStarts() {
        stoppedLeaderHandsItsRoleOnAndLeadsAgainAfterStart(application);
    }

    /** On Jedis, whose connection pool the stop destroys and the start builds anew. */
    @Test
    void aStoppedLeaderOnJedisHandsItsRoleToTheNextInstanceAtOnceAndLeadsAgainAfterTheContextStarts() {
        stoppedLeaderHandsItsRoleOnAndLeadsAgainAfterStart(application.withPropertyValues("spring.data.redis.client-type=jedis"));
    }

    private void stoppedLeaderHandsItsRoleOnAndLeadsAgainAfterStart(ApplicationContextRunner application) {
        application.run(context -> {
            LockRegistryLeaderInitiator leader = startLeader(context, new DefaultCandidate("stopping", role));
            awaitTheNextInstanceQueued(context);

            long stopping = System.nanoTime();
            context.stop();
            assertThat(nextEvents.poll(10, TimeUnit.SECONDS)).isInstanceOf(OnGrantedEvent.class);
            assertThat(Duration.ofNanos(System.nanoTime() - stopping)).as("the role passed on by the unlock, not by its lease of %s", ROLE_LEASE)
                    .isLessThan(ROLE_LEASE.dividedBy(3));

            context.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> next.locker.waiterCount() == 0 && leader.isRunning());
            nextInitiator.stop(); // hands the role back to the started context's initiator, queued for it
            await().atMost(Duration.ofSeconds(5)).until(() -> leader.getContext().isLeader());
        });
    }

    private LockRegistryLeaderInitiator startLeader(ConfigurableApplicationContext context, DefaultCandidate candidate) {
        LockRegistryLeaderInitiator leader = initiator(context.getBean(LockRegistry.class), candidate, new LinkedBlockingQueue<>());
        context.getBeanFactory().registerSingleton("leaderInitiator", leader); // stopped by the context, as a bean of the application's would be
        leader.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> leader.getContext().isLeader()); // its event comes after onGranted returns
        return leader;
    }

    private void awaitTheNextInstanceQueued(ConfigurableApplicationContext context) {
        nextInitiator = initiator(new LockerLockRegistry(next.locker), new DefaultCandidate("next", role), nextEvents);
        nextInitiator.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> next.locker.waiterCount() == 1);
    }

    private Duration closeAndTimeTheHandOver(ConfigurableApplicationContext context) throws InterruptedException {
        long closing = System.nanoTime();
        context.close();
        assertThat(nextEvents.poll(10, TimeUnit.SECONDS)).isInstanceOf(OnGrantedEvent.class);
        return Duration.ofNanos(System.nanoTime() - closing);
    }

    private static LockRegistryLeaderInitiator initiator(LockRegistry registry, DefaultCandidate candidate, BlockingQueue<AbstractLeaderEvent> events) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(100);
        initiator.setApplicationEventPublisher(event -> events.add((AbstractLeaderEvent) event));
        return initiator;
    }

    /** Work that ignores interrupts, and ends once the role's locker takes no new locks: its close has begun. */
    private static void workUntilTheLockerCloses(Lock probing) {
        boolean interrupted = false;
        while (true) {
            try {
                if (probing.tryLock()) {
                    probing.unlock();
                }
            } catch (IllegalStateException closing) {
                break;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
