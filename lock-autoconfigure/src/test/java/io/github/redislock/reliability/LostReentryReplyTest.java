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
 * A re-entry whose reply is lost after the script ran: Redis counts one hold more than the client,
 * whose {@code lock()} failed and whose caller will never unlock it. The holder's last unlock must free
 * the lock all the same; left counted, the watchdog would renew it with nobody behind it, for ever.
 * Found by the checked model (trail {@code abc-lost-reentry-reply}).
 */
class LostReentryReplyTest {

    private final String key = "lost-reentry-reply-" + UUID.randomUUID();
    @RegisterExtension
    final ProxiedInstances instances = new ProxiedInstances(TestRedis.shared(), Duration.ofSeconds(3), Duration.ofMillis(500));

    @Test
    void theLastUnlockFreesALockThatAReentryWithALostReplyCountedOnceMore() throws Exception {
        LockerFixture holder = instances.slowed;
        holder.locker.lock(key);
        instances.proxy.delay(700); // beyond the 500 ms command timeout: the re-entry runs, its reply comes too late
        Throwable reentry = catchThrowable(() -> holder.locker.lock(key));
        assertThat(reentry).isInstanceOf(LockRedisException.class);
        instances.proxy.heal();

        holder.locker.unlock(key);

        assertThat(instances.other.locker.tryLock(key, 5, 3, TimeUnit.SECONDS)).as("free after the holder's last unlock").isTrue();
        instances.other.locker.unlock(key);
    }

    /**
     * After the lost re-entry the holder re-enters again, successfully: Redis now counts three holds
     * for the client's two. The client's count, not Redis', decides which unlock is the last (model
     * trail {@code code-counts-from-redis}).
     */
    @Test
    void theLastUnlockFreesALockReenteredAgainAfterALostReentryReply() throws Exception {
        LockerFixture holder = instances.slowed;
        holder.locker.lock(key);
        instances.proxy.delay(700);
        assertThat(catchThrowable(() -> holder.locker.lock(key))).isInstanceOf(LockRedisException.class);
        instances.proxy.heal();
        holder.locker.lock(key);

        holder.locker.unlock(key);
        holder.locker.unlock(key);

        assertThat(holder.locker.heldLockCount()).as("no hold left after the caller's two unlocks").isZero();
        assertThat(instances.other.locker.tryLock(key, 5, 3, TimeUnit.SECONDS)).as("free after the holder's last unlock").isTrue();
        instances.other.locker.unlock(key);
    }
}
