package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipEvent;
import io.github.redislock.LeadershipListener;
import io.github.redislock.LockLostEvent;
import io.github.redislock.Locker;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Our leader election between two application instances on one Redis, with a 3 s lease: on a loaded
 * machine a 1 s lease ran out under a starved watchdog and handed the role over in the middle of a test
 * of something else. The tests of what a lease's end does use a 1 s lease of their own.
 */
class LockerLeaderElectionTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    /** For the tests that wait for a lease's end or a watchdog tick. */
    private static final Duration SHORT_LEASE = Duration.ofSeconds(1);

    /** What a listener heard, with when. */
    record Heard(String instance, boolean granted, long term, String reason, long nanos) {
    }

    private LockerFixture first;
    private LockerFixture second;
    private LockerLeaderElection firstElection;
    private LockerLeaderElection secondElection;
    private final BlockingQueue<Heard> heard = new LinkedBlockingQueue<>();
    private final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();
    private String role;

    @BeforeEach
    void startInstances() {
        first = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LEASE);
        second = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LEASE);
        firstElection = new LockerLeaderElection(key -> first.locker, event -> events.add((LeadershipEvent) event));
        secondElection = new LockerLeaderElection(second.locker);
        role = "role-" + UUID.randomUUID();
    }

    @AfterEach
    void stopInstances() {
        firstElection.close();
        secondElection.close();
        first.close();
        second.close();
    }

    private LeadershipListener listener(String instance) {
        return new LeadershipListener() {
            @Override
            public void granted(Candidacy candidacy, long term) {
                heard.add(new Heard(instance, true, term, null, System.nanoTime()));
            }

            @Override
            public void revoked(Candidacy candidacy, long term, String reason) {
                heard.add(new Heard(instance, false, term, reason, System.nanoTime()));
            }
        };
    }

    private Heard next() throws InterruptedException {
        Heard next = heard.poll(5, TimeUnit.SECONDS);
        assertThat(next).as("a grant or revocation within 5 s").isNotNull();
        return next;
    }

    @Test
    void aLeaderThatLeavesIsRevokedBeforeTheWaitingCandidateIsGrantedWithinMilliseconds() throws Exception {
        Candidacy leader = firstElection.join(role, listener("first"));
        Heard granted = next();
        assertThat(granted.granted()).isTrue();
        assertThat(leader.isLeader()).isTrue();
        assertThat(leader.term()).isEqualTo(granted.term());
        Candidacy follower = secondElection.join(role, listener("second"));
        await().atMost(Duration.ofSeconds(5)).until(() -> second.locker.waiterCount() == 1);
        assertThat(follower.isLeader()).isFalse();
        assertThatThrownBy(follower::term).isInstanceOf(IllegalStateException.class).hasMessageContaining(role);

        long left = System.nanoTime();
        leader.close();

        Heard revoked = next();
        Heard successor = next();
        assertThat(revoked).extracting(Heard::instance, Heard::granted, Heard::term, Heard::reason)
                .containsExactly("first", false, granted.term(), LeadershipEvent.LEFT);
        assertThat(successor.instance()).isEqualTo("second");
        assertThat(successor.granted()).isTrue();
        assertThat(successor.term()).as("terms rise").isGreaterThan(granted.term());
        assertThat(Duration.ofNanos(successor.nanos() - left)).as("handed over, not found at a poll").isLessThan(Duration.ofMillis(500));
        assertThat(revoked.nanos()).as("the old leader stopped before the new one started").isLessThan(successor.nanos());
        assertThat(follower.isLeader()).isTrue();
        assertThat(first.locker.heldLockCount()).as("nothing held after close()").isZero();
        assertThat(events).extracting(LeadershipEvent::isGranted, LeadershipEvent::getRole, LeadershipEvent::getTerm)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(true, role, granted.term()), org.assertj.core.groups.Tuple.tuple(false, role, granted.term()));
    }

    @Test
    void aLeaderThatYieldsHandsTheRoleOnAndQueuesAgainBehindTheNewLeader() throws Exception {
        Candidacy leader = firstElection.join(role, listener("first"));
        Heard firstTerm = next();
        Candidacy follower = secondElection.join(role, listener("second"));
        await().atMost(Duration.ofSeconds(5)).until(() -> second.locker.waiterCount() == 1);

        leader.yield();

        assertThat(next()).extracting(Heard::instance, Heard::granted, Heard::reason).containsExactly("first", false, LeadershipEvent.YIELDED);
        Heard secondTerm = next();
        assertThat(secondTerm).extracting(Heard::instance, Heard::granted).containsExactly("second", true);
        await().atMost(Duration.ofSeconds(5)).until(() -> first.locker.waiterCount() == 1);

        follower.close();

        assertThat(next()).extracting(Heard::instance, Heard::granted).containsExactly("second", false);
        Heard thirdTerm = next();
        assertThat(thirdTerm).extracting(Heard::instance, Heard::granted).containsExactly("first", true);
        assertThat(thirdTerm.term()).isGreaterThan(secondTerm.term()).isGreaterThan(firstTerm.term());
    }

    @Test
    void aLeaderWhoseLockWasLostIsRevokedAtTheWatchdogsNextTickAndThenRunsForANewTerm() throws Exception {
        try (LockerFixture shortLease = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), SHORT_LEASE);
             LockerLeaderElection election = new LockerLeaderElection(shortLease.locker)) {
            Candidacy leader = election.join(role, listener("first"));
            Heard granted = next();

            shortLease.redis.delete(shortLease.redisKey(role));
            long lost = System.nanoTime();

            Heard revoked = next();
            assertThat(revoked).extracting(Heard::instance, Heard::granted, Heard::reason).containsExactly("first", false, LeadershipEvent.LOST);
            assertThat(Duration.ofNanos(revoked.nanos() - lost)).as("one watchdog tick: a third of the 1 s lease, and slack").isLessThan(Duration.ofMillis(900));
            Heard again = next();
            assertThat(again.granted()).isTrue();
            assertThat(again.term()).isGreaterThan(granted.term());
            assertThat(leader.isLeader()).isTrue();
        }
    }

    @Test
    void aLockLostEventRevokesTheLeaderAtOnce() throws Exception {
        firstElection.join(role, listener("first"));
        Heard granted = next();
        String owner = first.locker.heldLocks().get(0).owner();

        // as the watchdog reports the loss of the term's hold: with the token the grant drew, its term
        firstElection.onApplicationEvent(new LockLostEvent(first.locker, role, first.redisKey(role), owner, LockLostEvent.EXPIRED_OR_DELETED, granted.term()));

        assertThat(next()).extracting(Heard::granted, Heard::term, Heard::reason).containsExactly(false, granted.term(), LeadershipEvent.LOST);
    }

    @Test
    void aCandidateThatLeavesWhileWaitingWithdrawsItsWaitAndHoldsNothing() throws Exception {
        firstElection.join(role, listener("first"));
        next();
        Candidacy follower = secondElection.join(role, listener("second"));
        await().atMost(Duration.ofSeconds(5)).until(() -> second.locker.waiterCount() == 1);

        follower.close();

        assertThat(second.locker.waiterCount()).isZero();
        assertThat(second.locker.heldLockCount()).isZero();
        assertThat(heard.poll(300, TimeUnit.MILLISECONDS)).as("a candidate that never led hears nothing").isNull();
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheCandidacy() throws Exception {
        Candidacy candidacy = firstElection.join(role, new LeadershipListener() {
            @Override
            public void granted(Candidacy candidacy, long term) {
                heard.add(new Heard("first", true, term, null, System.nanoTime()));
                throw new IllegalStateException("listener failure");
            }

            @Override
            public void revoked(Candidacy candidacy, long term, String reason) {
                heard.add(new Heard("first", false, term, reason, System.nanoTime()));
            }
        });
        assertThat(next().granted()).isTrue();
        assertThat(candidacy.isLeader()).isTrue();
        candidacy.close();
        assertThat(next().granted()).isFalse();
        assertThat(first.locker.isLocked(role)).isFalse();
    }

    @Test
    void aLockLostEventOfAnEarlierTermDoesNotRevokeTheCurrentOne() throws Exception {
        Candidacy leader = firstElection.join(role, listener("first"));
        Heard firstTerm = next();
        first.redis.delete(first.redisKey(role));
        assertThat(next()).extracting(Heard::granted, Heard::reason).containsExactly(false, LeadershipEvent.LOST);
        Heard secondTerm = next();
        assertThat(secondTerm.granted()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !first.lostEvents.isEmpty());
        LockLostEvent ofTheFirstTerm = first.lostEvents.get(0);

        firstElection.onApplicationEvent(ofTheFirstTerm); // delivered late, as an event published off the watchdog thread may be

        assertThat(heard.poll(300, TimeUnit.MILLISECONDS)).as("term " + secondTerm.term() + " goes on; the loss was of term " + firstTerm.term()).isNull();
        assertThat(leader.isLeader()).isTrue();
        assertThat(leader.term()).isEqualTo(secondTerm.term());
    }

    @Test
    void aCandidacyClosedAsItsLockIsGrantedIsNeverGrantedAndHoldsNothing() throws Exception {
        AtomicReference<Candidacy> candidacy = new AtomicReference<>();
        CountDownLatch acquired = new CountDownLatch(1);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        Locker closedAsItAcquires = lockerThatPausesAfterTryLock(first.locker, () -> {
            acquired.countDown();
            // close() has begun once it interrupts the wait it believes still running
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        });
        LockerLeaderElection election = new LockerLeaderElection(closedAsItAcquires);
        try {
            candidacy.set(election.join(role, listener("first")));
            assertThat(acquired.await(5, TimeUnit.SECONDS)).isTrue();
            new Thread(() -> {
                candidacy.get().close();
                closed.complete(null);
            }).start();
            closed.get(15, TimeUnit.SECONDS);

            assertThat(heard.poll(300, TimeUnit.MILLISECONDS)).as("no grant after close() began").isNull();
            assertThat(candidacy.get().isLeader()).isFalse();
            assertThat(first.locker.isLocked(role)).as("the lock just taken is given back").isFalse();
        } finally {
            election.close();
        }
    }

    @Test
    void aLeaderCutOffFromRedisNeverReadsAsLeaderAgainInItsOldTerm() throws Exception {
        try (RedisServerProcess server = TestRedis.startNew();
             LockerFixture cutOff = LockerFixture.connect(server.host(), server.port(), SHORT_LEASE)) {
            LockerLeaderElection election = new LockerLeaderElection(cutOff.locker);
            try {
                Candidacy leader = election.join(role, listener("cut-off"));
                long oldTerm = next().term();
                server.kill();
                await().atMost(Duration.ofSeconds(3)).until(() -> !leader.isLeader()); // two thirds of the lease without a renewal
                server.restart(); // empty: the role's lock is gone
                server.command("HSET", cutOff.redisKey(role), "another-instance:1", "1");
                server.command("PEXPIRE", cutOff.redisKey(role), "10000");

                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                int leaderReads = 0;
                while (heard.isEmpty() && System.nanoTime() < until) { // until the watchdog reconnected, found the lock lost and revoked
                    if (leader.isLeader()) {
                        leaderReads++;
                    }
                }
                assertThat(leaderReads).as("reads of isLeader() true in term " + oldTerm + " after the lease was in doubt").isZero();
                assertThat(next()).extracting(Heard::granted, Heard::term, Heard::reason).containsExactly(false, oldTerm, LeadershipEvent.LOST);
            } finally {
                election.close();
            }
        }
    }

    @Test
    void anElectionStoppedAndStartedAgainLeadsItsRolesAgainAndTakesNewCandidates() throws Exception {
        Candidacy leader = firstElection.join(role, listener("first"));
        Heard firstTerm = next();

        firstElection.stop();

        assertThat(next()).extracting(Heard::granted, Heard::reason).containsExactly(false, LeadershipEvent.LEFT);
        assertThat(first.locker.isLocked(role)).as("a stopped election holds no role").isFalse();
        assertThat(leader.isLeader()).isFalse();

        firstElection.start();

        Heard again = next();
        assertThat(again).extracting(Heard::instance, Heard::granted).containsExactly("first", true);
        assertThat(again.term()).isGreaterThan(firstTerm.term());
        assertThat(leader.isLeader()).isTrue();
        String other = role + "-other";
        firstElection.join(other, listener("first-other"));
        assertThat(next()).extracting(Heard::instance, Heard::granted).containsExactly("first-other", true);
    }

    @Test
    void aClosedElectionStaysClosed() throws Exception {
        firstElection.join(role, listener("first"));
        next();

        firstElection.close();
        firstElection.start();

        assertThat(next()).extracting(Heard::granted, Heard::reason).containsExactly(false, LeadershipEvent.LEFT);
        assertThat(heard.poll(300, TimeUnit.MILLISECONDS)).as("no grant after the close").isNull();
        assertThatThrownBy(() -> firstElection.join(role, listener("first"))).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    /** {@code locker}, whose successful {@code tryLock} runs {@code afterAcquiring} before it returns. */
    private static Locker lockerThatPausesAfterTryLock(Locker locker, Runnable afterAcquiring) {
        return (Locker) Proxy.newProxyInstance(Locker.class.getClassLoader(), new Class<?>[] {Locker.class}, (proxy, method, args) -> {
            Object result;
            try {
                result = method.invoke(locker, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (method.getName().equals("tryLock") && Boolean.TRUE.equals(result) && args.length == 4) {
                afterAcquiring.run();
            }
            return result;
        });
    }

    @Test
    void aRoleThatIsNoValidKeyIsRefusedNamingIt() {
        assertThatThrownBy(() -> firstElection.join(" ", listener("first"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> firstElection.join(null, listener("first"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
    }
}
