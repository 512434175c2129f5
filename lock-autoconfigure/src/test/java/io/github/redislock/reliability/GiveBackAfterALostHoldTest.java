package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostException;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An owner whose hold was lost while it held it twice tries again; the try replaces the lost hold
 * (the owner's two unlocks are still owed to it), and the wait is interrupted while the try's reply is
 * on its way. The try took the lock, so the wait gives it back: in Redis, since its caller never got
 * the lock and will never unlock it. Paying one of the lost hold's owed unlocks instead would leave
 * the lock taken, renewed by the watchdog, until the owner's last unlock of a hold it knows is lost.
 */
class GiveBackAfterALostHoldTest {

    private final String key = "give-back-after-a-lost-hold-" + UUID.randomUUID();
    private final ScheduledExecutorService interrupter = Executors.newSingleThreadScheduledExecutor();
    @RegisterExtension
    final ProxiedInstances instances = new ProxiedInstances(TestRedis.shared(), Duration.ofSeconds(3), Duration.ofSeconds(5));

    @AfterEach
    void close() {
        interrupter.shutdownNow();
        Thread.interrupted();
    }

    @Test
    void anInterruptedTryThatReplacedALostHoldGivesTheLockBackInRedis() throws Exception {
        LockerFixture holder = instances.slowed;
        LockerFixture other = instances.other;
        holder.locker.lock(key);
        holder.locker.lock(key);
        holder.redis.delete(holder.redisKey(key)); // lost: expired in a pause, deleted, a Redis restart
        Internals.renewNow(holder.locker); // the watchdog finds it gone

        instances.proxy.delay(600); // the try runs in Redis at once; its reply comes back late
        Thread waiting = Thread.currentThread();
        interrupter.schedule(waiting::interrupt, 200, TimeUnit.MILLISECONDS); // while the try's reply is on its way
        Throwable tried = catchThrowable(() -> holder.locker.tryLock(key, 0, -1, TimeUnit.MILLISECONDS));
        instances.proxy.heal();

        assertThat(tried).isInstanceOf(InterruptedException.class);
        assertThat(other.locker.tryLock(key, 1, -1, TimeUnit.SECONDS)).as("given back, not kept for the owner's unlocks of its lost hold").isTrue();
        assertThatThrownBy(() -> holder.locker.unlock(key)).as("the lost hold's unlock").isInstanceOf(LockLostException.class);
        assertThat(other.locker.isHeldByCurrentThread(key)).as("the other owner keeps the lock").isTrue();
        assertThat(other.locker.isLocked(key)).isTrue();
        other.locker.unlock(key);
    }
}
