package io.github.redislock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Candidacy;
import io.github.redislock.FencingTokens;
import io.github.redislock.LeadershipListener;
import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.LockRedisException;
import io.github.redislock.core.OverlapDetector;
import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.core.RedlockLocker;
import io.github.redislock.integration.LockerLockRegistry;
import io.github.redislock.leader.LockerLeaderElection;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.RedlockMasters;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Redlock over five real, independent redis-server processes, some of which the tests stop and restart. */
class RedlockTest {

    static final int MASTERS = 5;
    static final int QUORUM = MASTERS / 2 + 1;
    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(MASTERS);

    final List<LettuceConnectionFactory> factories = new ArrayList<>();
    final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();
    RedlockLocker first;
    RedlockLocker second;
    /** Every locker a test built: first, second and those with timeouts of their own. */
    final List<RedlockLocker> lockers = new ArrayList<>();
    String key;

    @BeforeEach
    void connect() {
        first = locker();
        second = locker();
        key = "redlock-" + UUID.randomUUID();
    }

    @AfterEach
    void disconnect() {
        lockers.forEach(RedlockLocker::close);
        factories.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void aLockIsWrittenToEveryMasterAndReleasedFromEvery() {
        first.lock(key);
        assertThat(copiesOf(key)).isEqualTo(MASTERS);
        assertThat(second.tryLock(key)).isFalse();
        assertThat(second.isLocked(key)).isTrue();
        first.unlock(key);
        assertThat(copiesOf(key)).isZero();
        assertThat(second.tryLock(key)).isTrue();
        second.unlock(key);
    }

    @Test
    void aReleaseWithHoldAtLeastKeepsTheLockOnAMajorityOwnedByNobodyUntilThen() {
        first.lock(key);
        first.unlock(key, Duration.ofMillis(400));

        assertThat(copiesOf(key)).isGreaterThanOrEqualTo(first.getQuorum());
        assertThat(first.tryLock(key)).isFalse();
        assertThat(second.tryLock(key)).isFalse();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20)).until(() -> copiesOf(key) == 0);
        assertThat(second.tryLock(key)).isTrue();
        second.unlock(key);
    }

    @Test
    void theSameThreadReentersAndOnlyTheLastUnlockFreesIt() {
        first.lock(key);
        first.lock(key);
        assertThat(first.getHoldCount(key)).isEqualTo(2);
        first.unlock(key);
        assertThat(first.isLocked(key)).isTrue();
        first.unlock(key);
        assertThat(first.isLocked(key)).isFalse();
    }

    /** A re-entry whose reply was lost counted one hold more on the masters, which nobody will unlock. */
    @Test
    void theOwnersLastUnlockFreesTheLockOnEveryMasterWhateverTheyCount() {
        first.lock(key);
        String owner = first.getClientId() + ":" + Thread.currentThread().getId();
        masters.list().forEach(master -> master.command("HINCRBY", "lock:" + key, owner, "1"));

        first.unlock(key);

        assertThat(copiesOf(key)).as("copies left after the owner's last unlock").isZero();
    }

    /**
     * An owner token's unlock while its re-entry is on its way: taken first, the unlock would be the
     * token's last one (freeing the lock whatever the masters count) while the re-entry, counted by
     * the masters just before, leaves the token believing it still holds the lock.
     */
    @Test
    void aTokensUnlockWaitsForItsReentryInFlightAndLeavesItHeldOnce() throws Exception {
        RedlockLocker client = locker(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(3));
        String token = "job-" + UUID.randomUUID();
        assertThat(client.tryLockAs(token, key, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS)).isTrue();
        masters.list().forEach(master -> master.command("CLIENT", "PAUSE", "400"));
        CompletableFuture<Boolean> reentry = CompletableFuture.supplyAsync(() -> {
            try {
                return client.tryLockAs(token, key, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100); // the re-entry is on its way to the paused masters

        client.unlockAs(token, key);

        assertThat(reentry.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(copiesOf(key)).as("copies while the token still holds the lock once").isEqualTo(MASTERS);
        client.unlockAs(token, key);
        assertThat(copiesOf(key)).isZero();
    }

    /**
     * A call that waits for each master's reply on a thread (isLocked, getHoldCount) ties up the thread
     * of a hung master until its command timeout: many such calls must not each leave a thread behind.
     */
    @Test
    void aHungMasterTiesUpOneFanOutThreadNotOnePerCall() throws Exception {
        RedlockLocker client = locker(Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(3));
        client.isLocked(key); // connected to every master
        long threadsBefore = fanOutThreads();
        masters.get(0).command("CLIENT", "PAUSE", "1500");
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(callers.submit(() -> {
                    for (int call = 0; call < 5; call++) {
                        assertThat(client.isLocked(key)).as("a majority answers that the lock is free").isFalse();
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(10, TimeUnit.SECONDS);
            }
            assertThat(fanOutThreads()).as("fan-out threads alive after 40 calls while a master hangs").isLessThanOrEqualTo(threadsBefore);
        } finally {
            callers.shutdownNow();
            masters.get(0).command("CLIENT", "UNPAUSE");
        }
    }

    /** A holder still at work when its locker starts closing unlocks a moment later: the unlock still reaches the masters. */
    @Test
    void aHolderThatUnlocksWhileItsLockerClosesFreesTheLockOnEveryMaster() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CompletableFuture<Void> holding = CompletableFuture.runAsync(() -> {
            first.lock(key);
            held.countDown();
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(2)).until(() -> closing(first));
            first.unlock(key);
        });
        assertThat(held.await(5, TimeUnit.SECONDS)).as("the holder's lock() returned").isTrue(); // a lock() still waiting would be ended by the close
        // What lock() promises: a majority. A master whose reply came after the node timeout (a loaded machine) may hold no copy.
        assertThat(copiesOf(key)).isGreaterThanOrEqualTo(QUORUM);

        first.close();

        holding.get(5, TimeUnit.SECONDS);
        assertThat(copiesOf(key)).as("copies left after the holder's unlock").isZero();
    }

    /** Whether {@code locker} refuses new locks: its close has begun. */
    private boolean closing(RedlockLocker locker) {
        try {
            locker.isLocked(key + "-probe");
            return false;
        } catch (IllegalStateException closed) {
            return true;
        }
    }

    @Test
    void aWatchdogLockWhoseOwnerThreadEndedIsFreeOnEveryMasterWithinTheWatchdogTimeoutAndReportedLost() throws Exception {
        Thread owner = new Thread(() -> first.lock(key), "ends-holding-the-redlock");
        owner.start();
        owner.join(5000);
        assertThat(copiesOf(key)).isGreaterThanOrEqualTo(QUORUM); // a master whose reply came after the node timeout may hold no copy

        // 1 s watchdog: noticed at the next tick (a third of it), then the last renewal runs out.
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20)).until(() -> copiesOf(key) == 0);
        await().atMost(Duration.ofSeconds(2)).until(() -> !lostEvents.isEmpty());
        assertThat(lostEvents).singleElement().satisfies(event -> {
            assertThat(event.getKey()).isEqualTo(key);
            assertThat(event.getReason()).isEqualTo(LockLostEvent.OWNER_THREAD_TERMINATED);
        });
        assertThat(second.tryLock(key)).isTrue();
        second.unlock(key);
    }

    @Test
    void twoClientsNeverHoldOneKeyAtTheSameTime() throws Exception {
        try (OverlapDetector section = new OverlapDetector(new StringRedisTemplate(factories.get(0)), "counter-" + key)) {
            sixThreadsOfTwoClients((client, pass) -> {
                client.lock(key);
                try {
                    pass.run();
                } finally {
                    client.unlock(key);
                }
            }, section);
            section.assertEveryPassWasAlone(6 * 8);
        }
        assertThat(copiesOf(key)).isZero();
    }

    @Test
    void withoutTheLockTheSameSectionsOverlap() throws Exception {
        // The control of the test above: its critical section does catch two clients inside at once.
        try (OverlapDetector section = new OverlapDetector(new StringRedisTemplate(factories.get(0)), "counter-" + key)) {
            sixThreadsOfTwoClients((client, pass) -> pass.run(), section);
            section.assertPassesOverlapped();
        }
    }

    /** Six threads, alternately of the first and the second client, released together; each runs {@code body} 8 times. */
    private void sixThreadsOfTwoClients(Body body, OverlapDetector section) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(6);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < 6; t++) {
                RedlockLocker client = t % 2 == 0 ? first : second;
                workers.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < 8; i++) {
                        body.run(client, section::pass);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface Body {
        void run(RedlockLocker client, Runnable criticalSection) throws Exception;
    }

    @Test
    void locksStillWorkWithTwoOfFiveMastersDown() {
        masters.get(0).stop();
        masters.get(3).stop();
        first.lock(key);
        assertThat(second.tryLock(key)).isFalse();
        first.unlock(key);
        assertThat(second.tryLock(key)).isTrue();
        second.unlock(key);
    }

    @Test
    void withThreeOfFiveMastersDownAcquisitionFailsCleanlyAndLeavesNothingBehind() {
        masters.get(0).stop();
        masters.get(2).stop();
        masters.get(4).stop();
        assertThatThrownBy(() -> first.withLock(key, Duration.ofMillis(500), () -> "never"))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining(key);
        assertThat(copiesOf(key)).as("copies left on the live masters").isZero();
    }

    @Test
    void aLockWhoseCopiesOnAMinorityWereLostInARestartIsNotGrantedToASecondClient() throws Exception {
        first.lock(key);
        masters.get(1).restart(); // no persistence: these two masters forget the lock
        masters.get(2).restart();

        assertThat(second.tryLock(key, 300, -1, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(copiesOf(key)).as("only the first client's three copies; the second's attempts were undone").isEqualTo(3);
        assertThat(first.isHeldByCurrentThread(key)).isTrue();
        first.unlock(key);
        assertThat(copiesOf(key)).isZero();
    }

    @Test
    void theWatchdogReportsALockLostOnAMajorityAndItsUnlockThrows() {
        first.lock(key);
        loseItOnAMajority();

        assertThat(lostEvents.get(0).getKey()).isEqualTo(key);
        assertThatThrownBy(() -> first.unlock(key)).isInstanceOf(LockLostException.class)
                .hasMessageContaining("was lost while owner").hasMessageContaining("the watchdog found it gone");
    }

    /** Three of the five masters forget every lock (no persistence), and the watchdog reports the loss. */
    private void loseItOnAMajority() {
        masters.get(0).restart();
        masters.get(1).restart();
        masters.get(2).restart();
        await().atMost(Duration.ofSeconds(5)).until(() -> !lostEvents.isEmpty());
    }

    /**
     * An unlock that too few masters answer in time cannot tell whether the lock was lost: it fails as
     * Redis failing (the lock frees itself when its lease ends), never as a loss another owner may have
     * caused. The release still reaches the silent masters once they answer.
     */
    @Test
    void anUnlockAMajorityDoesNotAnswerInTimeFailsAsARedisFailureNotALoss() {
        first.lock(key);
        for (int i = 0; i < 3; i++) {
            masters.get(i).command("CLIENT", "PAUSE", "1200");
        }

        assertThatThrownBy(() -> first.unlock(key)).isInstanceOf(LockRedisException.class)
                .hasMessageContaining("lock:" + key).hasMessageContaining("redis-lock.redlock.nodes");
        assertThat(first.heldLockCount()).as("holds the locker still knows of").isZero();
        await().atMost(Duration.ofSeconds(3)).until(() -> copiesOf(key) == 0);
    }

    /**
     * The owner locked twice: once before the watchdog found the lock lost on a majority, once after.
     * Its first unlock is owed to the lost hold: it reports the loss and leaves the lock taken since
     * alone, which only the second unlock frees.
     */
    @Test
    void anUnlockOwedToAHoldFoundLostReportsTheLossAndKeepsTheLockTakenSince() {
        first.lock(key);
        loseItOnAMajority();
        first.lock(key);

        assertThatThrownBy(() -> first.unlock(key)).isInstanceOf(LockLostException.class).hasMessageContaining(key);
        assertThat(copiesOf(key)).as("copies of the lock taken since the loss").isEqualTo(MASTERS);
        assertThat(second.tryLock(key)).isFalse();
        first.unlock(key);
        assertThat(copiesOf(key)).isZero();
    }

    /**
     * A round that cannot reach a majority, on a master that runs its acquire only after the client gave
     * up on the reply: that first hold is nobody's, and it is given back there at once rather than
     * blocking the master for the whole lease.
     */
    @Test
    void aFirstHoldWhoseReplyWasLostInAFailedRoundIsGivenBackOnThatMaster() {
        RedlockLocker client = locker(Duration.ofMillis(200), Duration.ofMillis(300), Duration.ofSeconds(5));
        client.lock(key); // the scripts are loaded on every master: the paused one runs the acquire itself, not a NOSCRIPT
        client.unlock(key);
        for (int i = 1; i <= 3; i++) {
            masters.get(i).command("HSET", "lock:" + key, "someone-else:1", "1");
            masters.get(i).command("PEXPIRE", "lock:" + key, "30000");
        }
        masters.get(0).command("CLIENT", "PAUSE", "800");

        assertThat(client.tryLock(key)).isFalse();

        await().pollDelay(Duration.ofMillis(1000)).atMost(Duration.ofMillis(2500)).pollInterval(Duration.ofMillis(50))
                .until(() -> Long.valueOf(0).equals(masters.get(0).command("EXISTS", "lock:" + key)));
        assertThat(masters.get(4).command("EXISTS", "lock:" + key)).as("the copy of the master that granted in time").isEqualTo(0L);
    }

    /** Each failed round's undo waits for the replies of the masters that did not answer in time; a close must not trip over them. */
    @Test
    void aLockerClosesCleanlyWhileTheUndosOfTwoFailedRoundsStillWaitForSilentMasters() {
        RedlockLocker client = locker(Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(5));
        client.lock(key); // connected to every master, the scripts loaded
        client.unlock(key);
        try {
            for (int i = 0; i < client.getQuorum(); i++) {
                masters.get(i).command("CLIENT", "PAUSE", "1500");
            }
            assertThat(client.tryLock(key)).as("a round only a minority answers").isFalse();
            assertThat(client.tryLock(key + "-second")).as("another key's round only a minority answers").isFalse();

            assertThatCode(client::close).as("closing while both rounds' undos wait for the paused masters").doesNotThrowAnyException();
        } finally {
            masters.list().forEach(master -> master.command("CLIENT", "UNPAUSE"));
        }
    }

    @Test
    void aLateUndoOfAFailedAttemptNeverRemovesTheCopyALaterAttemptCounted() {
        // Another owner holds the key on masters 3 and 4: the first client needs all of masters 0, 1 and 2.
        String foreignOwner = "someone-else:1";
        for (int i = 3; i < MASTERS; i++) {
            masters.get(i).command("HSET", "lock:" + key, foreignOwner, "1");
            masters.get(i).command("PEXPIRE", "lock:" + key, "30000");
        }
        RedlockLocker client = locker(Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofSeconds(5));
        // Master 2 answers attempt 1 only after its node timeout, together with attempt 2, which then counts it.
        masters.get(2).command("CLIENT", "PAUSE", "750");
        client.lock(key);

        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                .until(() -> Long.valueOf(1).equals(masters.get(2).command("EXISTS", "lock:" + key)));
        for (int i = 3; i < MASTERS; i++) {
            masters.get(i).command("DEL", "lock:" + key);
        }
        assertThat(second.tryLock(key)).as("a second client while the first holds the lock on a majority").isFalse();
        client.unlock(key);
    }

    @Test
    void aRenewalRoundAMajorityAnswersTooLateIsRetriedNotTakenForALoss() {
        // Validity 4 s, renewal every 1.33 s, node timeout 300 ms: a 1.7 s pause of a majority spans a whole round.
        RedlockLocker client = locker(Duration.ofMillis(300), Duration.ofMillis(500), Duration.ofSeconds(4));
        client.lock(key);
        for (int i = 0; i < 3; i++) {
            masters.get(i).command("CLIENT", "PAUSE", "1700");
        }

        await().during(Duration.ofMillis(3000)).atMost(Duration.ofMillis(3500)).until(lostEvents::isEmpty);
        assertThat(copiesOf(key)).isEqualTo(MASTERS);
        client.unlock(key);
        assertThat(copiesOf(key)).isZero();
    }

    @Test
    void aLockWhoseMajorityStaysSilentLongerThanItsValidityIsReportedLost() {
        first.lock(key); // validity 1 s, node timeout 500 ms
        for (int i = 0; i < 3; i++) {
            masters.get(i).command("CLIENT", "PAUSE", "2500");
        }

        await().atMost(Duration.ofMillis(2500)).until(() -> !lostEvents.isEmpty());
        assertThat(lostEvents.get(0).getKey()).isEqualTo(key);
        assertThatThrownBy(() -> first.unlock(key)).isInstanceOf(LockLostException.class);
    }

    @Test
    void lockInterruptiblyOnAnInterruptedThreadThrowsThoughTheLockIsFree() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> first.lockInterruptibly(key)).isInstanceOf(InterruptedException.class).hasMessageContaining(key);
        } finally {
            Thread.interrupted();
        }
        assertThat(copiesOf(key)).as("copies taken by the interrupted call").isZero();
    }

    @Test
    void theOtherLockKindsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> first.getFairLock(key)).isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("Redlock");
        assertThatThrownBy(() -> first.fencingToken(key)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("no majority rule makes them one increasing sequence");
    }

    @Test
    void theCurrentThreadsFencingTokenIsRefusedNamingTheProperty() {
        first.lock(key);
        try {
            assertThatThrownBy(() -> FencingTokens.current(key)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("redis-lock.redlock.nodes").hasMessageContaining("'" + key + "'");
        } finally {
            first.unlock(key);
        }
    }

    @Test
    void theLockRegistryRefusesARedlockLockerNamingTheProperty() {
        assertThatThrownBy(() -> new LockerLockRegistry<>(first)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-lock.redlock.nodes").hasMessageContaining("LockerLockRegistry");
    }

    /** Refused when built, as the registry and the election refuse it, not by an UnsupportedOperationException at its first acquire. */
    @Test
    void theAsyncLockerRefusesARedlockLockerNamingTheProperty() {
        assertThatThrownBy(() -> new RedisAsyncLocker(first)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-lock.redlock.nodes").hasMessageContaining("AsyncLocker");
    }

    @Test
    void aLockRegistryThatPicksARedlockLockerForAKeyRefusesToObtainItsLock() {
        LockerLockRegistry<?> registry = new LockerLockRegistry<>(lockKey -> first);
        assertThatThrownBy(() -> registry.obtain(key)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-lock.redlock.nodes").hasMessageContaining("'" + key + "'");
        assertThat(copiesOf(key)).isZero();
    }

    @Test
    void theLeaderElectionRefusesARedlockLockerNamingTheProperty() {
        assertThatThrownBy(() -> new LockerLeaderElection(first)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-lock.redlock.nodes");
    }

    @Test
    void aLeaderElectionThatPicksARedlockLockerForARoleRefusesToJoinIt() {
        LockerLeaderElection election = new LockerLeaderElection(role -> first, event -> {
        });
        try {
            assertThatThrownBy(() -> election.join(key, new LeadershipListener() {
                @Override
                public void granted(Candidacy candidacy, long term) {
                }

                @Override
                public void revoked(Candidacy candidacy, long term, String reason) {
                }
            })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis-lock.redlock.nodes").hasMessageContaining("'" + key + "'");
            assertThat(copiesOf(key)).as("no candidacy took the role").isZero();
        } finally {
            election.close();
        }
    }

    private RedlockLocker locker() {
        return locker(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(1));
    }

    private RedlockLocker locker(Duration nodeTimeout, Duration commandTimeout, Duration watchdogTimeout) {
        List<RedisConnectionFactory> nodes = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (RedisServerProcess master : masters.list()) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(master.host(), master.port()),
                    LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
            factory.afterPropertiesSet();
            factory.start();
            factories.add(factory);
            nodes.add(factory);
            names.add(master.redisUri());
        }
        RedlockLocker locker = new RedlockLocker(nodes, names, nodeTimeout, Duration.ofMillis(20), watchdogTimeout, "lock:",
                event -> {
                    if (event instanceof LockLostEvent lost) {
                        lostEvents.add(lost);
                    }
                });
        lockers.add(locker);
        return locker;
    }

    private static long fanOutThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().startsWith("redis-lock-redlock")).count();
    }

    private long copiesOf(String lockKey) {
        return masters.copiesOf("lock:" + lockKey);
    }
}
