package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostException;
import io.github.redislock.LockRedisException;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A nested unlock whose reply is lost is spent all the same: its caller got the exception and will not
 * unlock again. Counted as still open, a hold the watchdog then finds gone carries one unlock too many
 * over to the owner's next first hold, whose own balanced unlocks then pay that debt instead of freeing
 * it: the lock stays taken, renewed by the watchdog with nobody behind it. Found by the checked model
 * ({@code no_orphan}, one lost reply, a late renewal).
 */
class LostNestedUnlockReplyTest {

    private final String key = "lost-nested-unlock-reply-" + UUID.randomUUID();
    // A watchdog timeout long enough that no scheduled tick comes during the test: it ticks when told to.
    @RegisterExtension
    final ProxiedInstances instances = new ProxiedInstances(TestRedis.shared(), Duration.ofSeconds(30), Duration.ofMillis(500));

    @Test
    void aNestedUnlockWithALostReplyCountsAsSpentSoTheNextHoldIsFreedByItsOwnUnlock() throws Exception {
        LockerFixture holder = instances.slowed;
        holder.locker.lock(key);
        holder.locker.lock(key);
        holder.redis.delete(holder.redisKey(key)); // the lease ended unnoticed, as after a renewal that came too late
        instances.proxy.delay(700); // beyond the 500 ms command timeout: the nested unlock's reply comes too late
        assertThat(catchThrowable(() -> holder.locker.unlock(key))).isInstanceOf(LockRedisException.class);
        instances.proxy.heal();
        Internals.renewNow(holder.locker); // the watchdog finds the lock gone: the outer hold is lost

        holder.locker.lock(key); // a first hold again
        assertThat(catchThrowable(() -> holder.locker.unlock(key))).as("the outer hold's unlock reports its loss")
                .isInstanceOf(LockLostException.class);
        holder.locker.unlock(key);

        assertThat(holder.locker.heldLockCount()).as("no hold left after as many unlocks as locks").isZero();
        assertThat(instances.other.locker.tryLock(key, 3, 3, TimeUnit.SECONDS)).as("free after the holder's last unlock").isTrue();
        instances.other.locker.unlock(key);
    }
}
