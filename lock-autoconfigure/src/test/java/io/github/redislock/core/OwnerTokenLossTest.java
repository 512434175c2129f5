package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostException;
import io.github.redislock.Locker;

import org.junit.jupiter.api.Test;

/**
 * An owner token whose hold was lost takes the lock again (another of its threads, say) before the
 * lost hold is unlocked. The lost hold's unlock must report the loss and leave the newer hold alone:
 * releasing it would free the key under the thread that just took it, while it believes it holds it.
 * Found by the checked model (trail {@code abc-unlock-after-loss}).
 */
class OwnerTokenLossTest extends TwoInstances {

    @Test
    void theUnlockOwedToALostHoldLeavesTheOwnersNewerHoldAlone() throws Exception {
        String token = "job-" + UUID.randomUUID();
        assertThat(first.locker.tryLockAs(token, key, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS)).isTrue();
        first.redis.delete(first.redisKey(key)); // lost: expired in a pause, deleted, a Redis restart
        Internals.renewNow(first.locker); // the watchdog finds it gone
        assertThat(first.locker.tryLockAs(token, key, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS)).as("taken again").isTrue();

        assertThatThrownBy(() -> first.locker.unlockAs(token, key)).isInstanceOf(LockLostException.class).hasMessageContaining(key);
        assertThat(second.locker.tryLock(key)).as("another owner takes the lock the token took again").isFalse();

        first.locker.unlockAs(token, key);
        assertThat(second.locker.tryLock(key)).isTrue();
        second.locker.unlock(key);
    }

    /**
     * The same with a lost hold taken twice, its first unlock already told of the loss: the second
     * unlock is owed to the lost hold too, and must leave the hold the token took since alone.
     */
    @Test
    void everyUnlockOwedToANestedLostHoldLeavesTheOwnersNewerHoldAlone() throws Exception {
        String token = "job-" + UUID.randomUUID();
        assertThat(first.locker.tryLockAs(token, key, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(first.locker.tryLockAs(token, key, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS)).isTrue();
        first.redis.delete(first.redisKey(key));
        Internals.renewNow(first.locker);
        assertThatThrownBy(() -> first.locker.unlockAs(token, key)).isInstanceOf(LockLostException.class);
        assertThat(first.locker.tryLockAs(token, key, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS)).as("taken again").isTrue();

        assertThatThrownBy(() -> first.locker.unlockAs(token, key)).as("the lost hold's second unlock").isInstanceOf(LockLostException.class);
        assertThat(second.locker.tryLock(key)).as("another owner takes the lock the token took again").isFalse();

        first.locker.unlockAs(token, key);
        assertThat(second.locker.tryLock(key)).isTrue();
        second.locker.unlock(key);
    }
}
