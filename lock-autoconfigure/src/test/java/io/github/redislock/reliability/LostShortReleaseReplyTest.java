package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The short release of an uncontended hold changes nothing when a waiter marked the lock meanwhile: only the full
 * release that follows hands the lock on. A short release whose reply is lost may have been that answer, so the
 * client sends the full release all the same; without it the waiter would wait for the whole lease of a hold
 * nobody renews any more.
 */
class LostShortReleaseReplyTest {

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "lost-short-release-reply-" + UUID.randomUUID();
    // A watchdog timeout far beyond the waiter's wait: only a release hands the lock on in time.
    @RegisterExtension
    final ProxiedInstances instances = new ProxiedInstances(redis, Duration.ofSeconds(30), Duration.ofMillis(500));

    @Test
    void aWaiterGetsTheLockWhenTheShortReleaseReplyOfItsHolderWasLost() throws Exception {
        LockerFixture holder = instances.slowed;
        holder.locker.lock(key + "-first");
        holder.locker.unlock(key + "-first"); // Redis has release.lua now: a late reply below is the script's, not a NOSCRIPT
        holder.locker.lock(key); // its first try: the final unlock goes out as the short release
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                boolean taken = instances.other.locker.tryLock(key, 5, 3, TimeUnit.SECONDS);
                if (taken) {
                    instances.other.locker.unlock(key);
                }
                return taken;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        await().atMost(Duration.ofSeconds(2)).until(() -> redis.command("HGET", holder.redisKey(key), "waiters") != null); // its blocked try marked it

        // the short release runs; its reply comes well after the 500 ms command timeout, which Lettuce's timer (100 ms ticks) fires late on a loaded machine
        instances.proxy.delayReplies(1_500);
        assertThat(catchThrowable(() -> holder.locker.unlock(key))).isInstanceOf(LockRedisException.class);
        instances.proxy.heal();

        assertThat(waiter.get(5, TimeUnit.SECONDS)).as("the waiter got the lock within its 5 s wait, not after the 30 s lease").isTrue();
    }
}
