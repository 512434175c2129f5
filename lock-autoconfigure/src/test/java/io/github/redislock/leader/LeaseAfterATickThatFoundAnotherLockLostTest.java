package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.github.redislock.Candidacy;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * A watchdog tick that renewed the leader's own lock stays a renewal for the leader's lease clock though it
 * found another lock of the same Locker gone (deleted, expired): the leader's lease runs from that tick's send,
 * so it does not read as in doubt.
 *
 * <p>Once the role is held, the test deletes one of the Locker's other locks in Redis each time the watchdog
 * has found the one before gone, so every tick finds one lost.
 *
 * <p>Failed before the fix (c4afc5e): "reads of isLeader() false while every tick renewed the leader's lock, expected 0
 * but was 396": the watchdog stamped its last renewal only for a tick that found every lock still held, and the
 * leader read its lease from that stamp.
 */
class LeaseAfterATickThatFoundAnotherLockLostTest {

    private static final Duration LEASE = Duration.ofMillis(1500);

    private final String id = UUID.randomUUID().toString();

    @Test
    void aLeaderWhoseOwnLockEveryTickRenewsStaysLeaderWhileEachTickFindsAnotherLockGone() throws Exception {
        try (LockerFixture instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LEASE)) {
            LockerLeaderElection election = new LockerLeaderElection(instance.locker);
            try {
                CountDownLatch granted = new CountDownLatch(1);
                Candidacy leader = election.join("role-" + id, LeaseInDoubtAcrossWallClockStepsTest.grantsTo(granted));
                assertThat(granted.await(5, TimeUnit.SECONDS)).as("granted").isTrue();
                List<String> others = IntStream.range(0, 12).mapToObj(i -> "other-" + i + "-" + id).toList();
                others.forEach(instance.locker::lock);

                long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos(); // six ticks
                int deleted = 0;
                int notLeaderReads = 0;
                while (System.nanoTime() < until) {
                    if (deleted < others.size() && instance.locker.watchdogState().watchedCount() == 1 + others.size() - deleted) {
                        instance.redis.delete(Internals.plainLockKeys(LockerFixture.PREFIX, others.get(deleted++))); // the next tick finds it gone
                    }
                    if (!leader.isLeader()) {
                        notLeaderReads++;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
                others.subList(deleted, others.size()).forEach(instance.locker::unlock);

                assertThat(deleted - 1).as("ticks that found another lock gone").isGreaterThanOrEqualTo(4);
                assertThat(notLeaderReads).as("reads of isLeader() false while every tick renewed the leader's lock").isZero();
            } finally {
                election.close();
            }
        }
    }
}
