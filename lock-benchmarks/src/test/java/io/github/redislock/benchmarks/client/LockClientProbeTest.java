package io.github.redislock.benchmarks.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.core.RedisLocker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The client-cost hook runs the locker's whole client path, two script calls per pair, and refuses what it cannot answer. */
class LockClientProbeTest {

    @Test
    void anUncontendedPairGoesThroughBothScriptCallsAndLeavesNoHold() throws InterruptedException {
        try (LockClientProbe probe = LockClientProbe.uncontended("probe:")) {
            RedisLocker locker = probe.locker();
            locker.lock("k");
            assertThat(locker.fencingToken("k")).isEqualTo(LockClientProbe.TOKEN);
            assertThat(locker.heldLockCount()).isEqualTo(1);
            locker.unlock("k");
            assertThat(locker.tryLock("k", 0, 10, TimeUnit.SECONDS)).isTrue();
            locker.unlock("k");
            assertThat(probe.scriptCalls()).isEqualTo(4);
            assertThat(locker.heldLockCount()).isZero();
        }
    }

    @Test
    void aWatchdogRenewalDuringAPairIsNotCountedAsOneOfThePairsScriptCalls() throws InterruptedException {
        try (LockClientProbe probe = LockClientProbe.uncontended("probe:", Duration.ofMillis(150))) {
            RedisLocker locker = probe.locker();
            locker.lock("k");
            long renewalsBefore = probe.renewalCalls();
            while (probe.renewalCalls() == renewalsBefore) { // a tick every 50 ms
                Thread.sleep(10);
            }
            locker.unlock("k");
            assertThat(probe.scriptCalls()).isEqualTo(2);
        }
    }

    @Test
    void whatItCannotAnswerAsAnUncontendedPairFailsNamingIt() {
        try (LockClientProbe probe = LockClientProbe.uncontended("probe:")) {
            assertThatThrownBy(() -> probe.locker().getFairLock("k").lock()).hasRootCauseInstanceOf(UnsupportedOperationException.class)
                    .rootCause().hasMessageContaining("LockClientProbe");
        }
    }
}
