package io.github.redislock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's own LockRegistryLeaderInitiator, unchanged, on our registry: two application
 * instances, each with its initiator, elect one leader and hand the role over through our queue.
 */
class LeaderInitiatorOnRegistryTest {

    private static final long HEART_BEAT_MILLIS = 100;

    private LockerFixture first;
    private LockerFixture second;
    private LockRegistryLeaderInitiator firstInitiator;
    private LockRegistryLeaderInitiator secondInitiator;
    private final BlockingQueue<AbstractLeaderEvent> firstEvents = new LinkedBlockingQueue<>();
    private final BlockingQueue<AbstractLeaderEvent> secondEvents = new LinkedBlockingQueue<>();
    private String role;

    @BeforeEach
    void startInstances() {
        first = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
        second = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
        role = "initiator-" + UUID.randomUUID();
        firstInitiator = initiator(first, "first", firstEvents);
        secondInitiator = initiator(second, "second", secondEvents);
    }

    @AfterEach
    void stopInstances() {
        firstInitiator.stop();
        secondInitiator.stop();
        first.close();
        second.close();
    }

    private LockRegistryLeaderInitiator initiator(LockerFixture instance, String id, BlockingQueue<AbstractLeaderEvent> events) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(new LockerLockRegistry<>(instance.locker), new DefaultCandidate(id, role));
        initiator.setHeartBeatMillis(HEART_BEAT_MILLIS);
        initiator.setBusyWaitMillis(HEART_BEAT_MILLIS);
        initiator.setApplicationEventPublisher(event -> events.add((AbstractLeaderEvent) event));
        return initiator;
    }

    @Test
    void oneOfTwoInstancesIsGrantedAndItsHeartbeatsDoNotGrowItsHoldCount() throws Exception {
        firstInitiator.start();
        assertThat(firstEvents.poll(5, TimeUnit.SECONDS)).isInstanceOf(OnGrantedEvent.class);
        secondInitiator.start();

        // A beat re-enters (2 holds) and releases again (1): sampled over 10 beats, the count never climbs past that.
        List<String> counts = new ArrayList<>();
        for (int sample = 0; sample < 40; sample++) {
            Thread.sleep(HEART_BEAT_MILLIS / 4);
            first.redis.opsForHash().entries(first.redisKey(role)).forEach((owner, count) -> {
                if (owner.toString().startsWith(first.locker.getClientId())) {
                    counts.add(count.toString());
                }
            });
        }
        assertThat(counts).hasSize(40).isSubsetOf("1", "2").contains("1");
        assertThat(firstInitiator.getContext().isLeader()).isTrue();
        assertThat(secondInitiator.getContext().isLeader()).isFalse();
        assertThat(secondEvents).isEmpty();
        assertThat(first.locker.heldLocks()).singleElement().satisfies(held -> assertThat(held.holdCount()).isBetween(1L, 2L));
    }

    @Test
    void aStoppedLeaderIsRevokedHoldsNothingAndTheOtherInstanceIsGranted() throws Exception {
        firstInitiator.start();
        assertThat(firstEvents.poll(5, TimeUnit.SECONDS)).isInstanceOf(OnGrantedEvent.class);
        secondInitiator.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> second.locker.waiterCount() == 1);

        long stopped = System.nanoTime();
        firstInitiator.stop();

        assertThat(secondEvents.poll(5, TimeUnit.SECONDS)).isInstanceOf(OnGrantedEvent.class);
        assertThat(Duration.ofNanos(System.nanoTime() - stopped)).as("handed over in the waiter's queue").isLessThan(Duration.ofMillis(1000));
        assertThat(firstEvents.poll(5, TimeUnit.SECONDS)).isInstanceOf(OnRevokedEvent.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> first.locker.heldLockCount() == 0);
        assertThat(first.redis.opsForHash().keys(first.redisKey(role))).noneMatch(owner -> owner.toString().startsWith(first.locker.getClientId()));
    }

    @Test
    void aLeaderThatYieldsHandsTheRoleToTheOtherInstance() throws Exception {
        firstInitiator.start();
        assertThat(firstEvents.poll(5, TimeUnit.SECONDS)).isInstanceOf(OnGrantedEvent.class);
        secondInitiator.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> second.locker.waiterCount() == 1);

        firstInitiator.getContext().yield();

        assertThat(firstEvents.poll(5, TimeUnit.SECONDS)).isInstanceOf(OnRevokedEvent.class);
        assertThat(secondEvents.poll(5, TimeUnit.SECONDS)).isInstanceOf(OnGrantedEvent.class);
        assertThat(firstInitiator.getContext().isLeader()).isFalse();
    }

    @Test
    void aLeaderWhoseLockWasLostIsRevokedAtItsNextHeartbeatAndNoLongerHoldsIt() throws Exception {
        firstInitiator.start();
        assertThat(firstEvents.poll(5, TimeUnit.SECONDS)).isInstanceOf(OnGrantedEvent.class);

        first.redis.delete(first.redisKey(role));

        assertThat(firstEvents.poll(5, TimeUnit.SECONDS)).as("revoked, not silently re-taking the lost lock").isInstanceOf(OnRevokedEvent.class);
        assertThat(firstEvents.poll(5, TimeUnit.SECONDS)).as("granted again in a new term").isInstanceOf(OnGrantedEvent.class);
        assertThat(first.locker.heldLocks()).singleElement().satisfies(held -> assertThat(held.holdCount()).isBetween(1L, 2L));
    }
}
