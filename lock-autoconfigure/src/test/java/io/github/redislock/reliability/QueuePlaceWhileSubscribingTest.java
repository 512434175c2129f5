package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A queued waiter keeps its place in the lock's wait queue while Redis has not yet confirmed the subscription to
 * the lock's release channel: a place lives a third of the watchdog timeout unless the waiter tries again, and
 * a pub/sub connection that opens slowly (a cold JVM, a loaded server, a Jedis reconnect every second) must not
 * let a waiter that queued later overtake it. The slow waiter's new connections (its pub/sub one) get their
 * replies 1.5 s late through a {@link FaultProxy}; with a 1 s watchdog timeout its place lives 333 ms.
 *
 * <p>Fails on 65b3147: the release hands the lock to the waiter that queued second. {@code LockWait.listen()} arms
 * only the wait's deadline while the join is unconfirmed, so no try refreshes the place meanwhile. This is what
 * made {@code AsyncLockerTest.threadsAndHandlesOfBothInstancesAreServedInTheOrderTheyQueued} fail on the 6.2 leg
 * in a cold test JVM (the first queued async handle served second).
 */
class QueuePlaceWhileSubscribingTest {

    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "queue-place-while-subscribing-" + UUID.randomUUID();
    private final ExecutorService secondWaiter = Executors.newSingleThreadExecutor(); // its hold is its thread's: it unlocks there too
    @RegisterExtension
    final ProxiedInstances instances = new ProxiedInstances(redis, WATCHDOG_TIMEOUT, Duration.ofSeconds(5));

    @BeforeEach
    void connect() {
        instances.slowed.locker.isLocked(key); // its script connection is open: only the pub/sub one opens later
    }

    @AfterEach
    void close() {
        secondWaiter.shutdownNow();
    }

    @Test
    void aWaiterWhoseReleaseChannelIsStillBeingSubscribedKeepsItsPlaceAheadOfALaterWaiter() throws Exception {
        LockerFixture holder = instances.other;
        LockerFixture slowlySubscribing = instances.slowed;
        holder.locker.lock(key);
        instances.proxy.delayRepliesOfNewConnections(1500);
        CompletableFuture<LockHandle> first = slowlySubscribing.async.acquire(key, Duration.ofSeconds(10), null);
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 1);
        double firstDeadline = redis("ZSCORE", deadlinesKey(), queue().get(0));
        Future<Boolean> second = secondWaiter.submit(() -> holder.locker.tryLock(key, 10, 1, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 2);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> redisMillis() > firstDeadline + 100);

        holder.locker.unlock(key);

        assertThat(holder.redis.<String, String>opsForHash().keys(holder.redisKey(key)))
                .as("the release hands the lock to the first waiter in the queue").anyMatch(field -> field.startsWith(slowlySubscribing.locker.getClientId()));
        instances.proxy.heal();
        slowlySubscribing.async.release(first.get(10, TimeUnit.SECONDS)).get(5, TimeUnit.SECONDS);
        assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
        secondWaiter.submit(() -> holder.locker.unlock(key)).get(5, TimeUnit.SECONDS);
    }

    private List<String> queue() {
        return instances.other.redis.opsForList().range(LockerFixture.PREFIX + "{" + LockerFixture.PREFIX + key + "}:wait-queue", 0, -1);
    }

    private String deadlinesKey() {
        return LockerFixture.PREFIX + "{" + LockerFixture.PREFIX + key + "}:wait-deadlines";
    }

    private double redis(String... command) {
        return Double.parseDouble(String.valueOf(redis.command(command)));
    }

    private long redisMillis() {
        List<?> time = (List<?>) redis.command("TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
    }
}
