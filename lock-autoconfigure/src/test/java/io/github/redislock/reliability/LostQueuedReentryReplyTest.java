package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A wait whose first try goes out as a re-entry (its owner's hold ended in Redis unnoticed, and another
 * owner took the lock) queues a place like any blocked try. When that try's reply is lost the wait must
 * still take the place out, as a fair lock's wait does; left queued, the next release hands the lock to
 * the ended wait, where it stays for the claim lease with nobody behind it.
 */
class LostQueuedReentryReplyTest {

    /** A queue place lives a third of it (3 s), the claim lease of a hand-off all of it. */
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(9);

    private final String key = "lost-queued-reentry-reply-" + UUID.randomUUID();
    @RegisterExtension
    final ProxiedInstances instances = new ProxiedInstances(TestRedis.shared(), WATCHDOG_TIMEOUT, Duration.ofSeconds(1));

    @Test
    void aWaitWhoseQueuedReentryReplyWasLostLeavesNoPlaceForTheNextRelease() throws Exception {
        LockerFixture holder = instances.slowed;
        LockerFixture other = instances.other;
        holder.locker.lock(key + "-warm-up"); // its scripts are in Redis: a lost reply comes from a script that ran
        holder.locker.unlock(key + "-warm-up");
        assertThat(holder.locker.tryLock(key, 0, 30, TimeUnit.SECONDS)).isTrue(); // leased: no renewal notices the loss
        other.redis.delete(other.redisKey(key)); // the hold ends in Redis; its client still knows it as live
        assertThat(other.locker.tryLock(key)).isTrue();

        instances.proxy.delay(1500); // beyond the 1 s command timeout: the try queues its place, its reply comes too late
        Throwable wait = catchThrowable(() -> holder.locker.tryLock(key, 2, 30, TimeUnit.SECONDS));
        assertThat(wait).isInstanceOf(LockRedisException.class);
        instances.proxy.heal();
        holder.locker.tryLock(key + "-behind"); // a round trip behind what the proxy held back, on the connection the wait used
        holder.locker.unlock(key + "-behind"); // (Lettuce's shared one, or this thread's own): that has reached Redis now
        other.locker.unlock(key);

        assertThat(other.locker.tryLock(key, 1, 3, TimeUnit.SECONDS)).as("free after the release, not handed to the ended wait").isTrue();
        other.locker.unlock(key);
    }
}
