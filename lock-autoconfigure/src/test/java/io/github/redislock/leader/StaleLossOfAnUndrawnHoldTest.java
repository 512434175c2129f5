package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipListener;
import io.github.redislock.LockLostEvent;
import io.github.redislock.Locker;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * A candidate whose hold of the role's lock is lost before its term is drawn (force-released, or its lease
 * run out in a pause) gets a {@link LockLostEvent} with token 0, as no token was ever drawn for that hold.
 * Events reach the election off the watchdog's thread, so that one may come after the same candidacy (same
 * thread, same owner) took the lock again and leads a new term: it must not end that term.
 */
class StaleLossOfAnUndrawnHoldTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final long WITHIN_SECONDS = 30;

    private final String role = "role-" + UUID.randomUUID();

    @Test
    void aLateLossOfAHoldThatNeverDrewATokenDoesNotEndTheNextTerm() throws Exception {
        AtomicReference<LockLostEvent> lost = new AtomicReference<>();
        CountDownLatch lossReported = new CountDownLatch(1);
        try (RedisServerProcess server = TestRedis.startNew();
             LockerFixture fixture = LockerFixture.connect(server.host(), server.port(), LEASE);
             RedisLocker locker = RedisLocker.builder(fixture.connectionFactory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(LEASE)
                     .events(event -> {
                         if (event instanceof LockLostEvent loss && lost.compareAndSet(null, loss)) {
                             lossReported.countDown(); // kept from the election: delivered late, below
                         }
                     }).build()) {
            AtomicInteger checksAfterTheLateEvent = new AtomicInteger(-1);
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Locker candidateLocker = WatchedLocker.of(locker, call -> {
                // a leader looks at its hold (fencingToken) every tenth of a second, after reading whether its term ended
                if (call.equals("fencingToken") && checksAfterTheLateEvent.get() >= 0 && checksAfterTheLateEvent.incrementAndGet() == 2) {
                    outcome.complete("still leading"); // it read that after the late event, and went on leading
                }
            }, () -> {
                fixture.redis.delete(fixture.redisKey(role)); // force-released before anybody asked for its token
                await(lossReported, "the watchdog reported the first hold lost");
            });
            LockerLeaderElection election = new LockerLeaderElection(key -> candidateLocker, event -> {
            });
            CountDownLatch granted = new CountDownLatch(1);
            try {
                Candidacy candidacy = election.join(role, new LeadershipListener() {
                    @Override
                    public void granted(Candidacy leader, long term) {
                        granted.countDown();
                    }

                    @Override
                    public void revoked(Candidacy leader, long term, String reason) {
                        outcome.complete("revoked: " + reason);
                    }
                });
                await(granted, "granted a term on the lock taken again");
                LockLostEvent late = lost.get();
                assertThat(late.getFencingToken()).as("the lost hold never drew a token").isZero();
                assertThat(late.getKey()).isEqualTo(role);

                checksAfterTheLateEvent.set(0);
                election.onApplicationEvent(late);

                assertThat(outcome.get(WITHIN_SECONDS, TimeUnit.SECONDS)).isEqualTo("still leading");
                assertThat(candidacy.isLeader()).isTrue();
            } finally {
                election.close();
            }
        }
    }

    private static void await(CountDownLatch latch, String what) {
        try {
            assertThat(latch.await(WITHIN_SECONDS, TimeUnit.SECONDS)).as(what).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(what, e);
        }
    }
}
