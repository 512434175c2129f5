package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipListener;
import io.github.redislock.Locker;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.WatchdogState;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * A leader's lease is in doubt after two thirds of it without a renewal, however the wall clock moves:
 * an NTP step or an operator's {@code date -s} between a renewal and the leader's check must neither keep
 * a cut-off leader leading past its lease nor revoke a healthy one.
 *
 * <p>The step is played through the Locker's watchdog view: every wall-clock instant it reports was read
 * {@code step} before the clock moved, which is what a reader of {@link Instant#now()} sees after the step.
 */
class LeaseInDoubtAcrossWallClockStepsTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration AN_HOUR = Duration.ofHours(1);

    private final String role = "role-" + UUID.randomUUID();

    @Test
    void aLeaderCutOffFromRedisIsInDoubtWithinItsLeaseThoughTheWallClockWasSteppedBack() throws Exception {
        try (RedisServerProcess server = TestRedis.startNew();
             LockerFixture instance = LockerFixture.connect(server.host(), server.port(), LEASE)) {
            LockerLeaderElection election = new LockerLeaderElection(key -> afterAWallClockStep(instance.locker, AN_HOUR.negated()), event -> {
            });
            try {
                CountDownLatch granted = new CountDownLatch(1);
                Candidacy leader = election.join(role, grantsTo(granted));
                assertThat(granted.await(5, TimeUnit.SECONDS)).as("granted").isTrue();
                await().atMost(LEASE).until(() -> instance.locker.watchdogState().lastRenewal() != null);

                server.pause(); // no renewal succeeds from now on
                try {
                    await().atMost(LEASE.multipliedBy(2)).pollInterval(Duration.ofMillis(10))
                            .alias("in doubt after two thirds of the lease without a renewal, the wall clock an hour back")
                            .until(() -> !leader.isLeader());
                } finally {
                    server.resume();
                }
            } finally {
                election.close();
            }
        }
    }

    @Test
    void aLeaderWhoseRenewalsSucceedStaysLeaderThoughTheWallClockWasSteppedForward() throws Exception {
        try (LockerFixture instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LEASE)) {
            LockerLeaderElection election = new LockerLeaderElection(key -> afterAWallClockStep(instance.locker, AN_HOUR), event -> {
            });
            try {
                CountDownLatch granted = new CountDownLatch(1);
                Candidacy leader = election.join(role, grantsTo(granted));
                assertThat(granted.await(5, TimeUnit.SECONDS)).as("granted").isTrue();

                long until = System.nanoTime() + LEASE.toNanos(); // three renewal ticks
                int notLeaderReads = 0;
                while (System.nanoTime() < until) {
                    if (!leader.isLeader()) {
                        notLeaderReads++;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }

                assertThat(notLeaderReads).as("reads of isLeader() false while every renewal succeeded, the wall clock an hour ahead").isZero();
                assertThat(instance.locker.watchdogState().consecutiveFailures()).isZero();
            } finally {
                election.close();
            }
        }
    }

    private static LeadershipListener grantsTo(CountDownLatch granted) {
        return new LeadershipListener() {
            @Override
            public void granted(Candidacy candidacy, long term) {
                granted.countDown();
            }

            @Override
            public void revoked(Candidacy candidacy, long term, String reason) {
            }
        };
    }

    /** {@code locker}, whose watchdog reports its wall-clock instants as read {@code step} before the clock was stepped by it. */
    private static Locker afterAWallClockStep(Locker locker, Duration step) {
        WatchdogState.Source source = (WatchdogState.Source) locker;
        return (Locker) Proxy.newProxyInstance(Locker.class.getClassLoader(), new Class<?>[] {Locker.class, WatchdogState.Source.class},
                (proxy, method, args) -> method.getName().equals("watchdogState") && method.getParameterCount() == 0
                        ? steppedView(source.watchdogState(), step)
                        : invoke(locker, method, args));
    }

    private static WatchdogState steppedView(WatchdogState watchdog, Duration step) {
        return (WatchdogState) Proxy.newProxyInstance(WatchdogState.class.getClassLoader(), new Class<?>[] {WatchdogState.class},
                (proxy, method, args) -> {
                    Object result = invoke(watchdog, method, args);
                    return result instanceof Instant instant ? instant.minus(step) : result;
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
