package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.LockHandle;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.testsupport.RedisClusterProcesses;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A hand-off in flight while the waiter's Locker closes, on a 3-master Redis Cluster ({@code FaultProxy} cannot front cluster
 * nodes, so the waiter's side is paused instead): the waiter, a JVM of its own, is paused ({@code kill -STOP}) while queued, the
 * holder's release hands it the lock, and it resumes with a {@code kill -TERM} pending, so its Locker's close races the grant's
 * delivery. The lock must not stay held by nobody longer than the waiter's claim lease (its watchdog timeout). Also: whether a
 * lock's channels are sharded is asked of the cluster once, as a Locker starts, on the thread that builds it, never by a call
 * that publishes, which may run on the Redis client's event loop, where the ask waits for replies that loop itself must read
 * (which thread asked is read from {@code ShardedChannels}' one log line).
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterCloseDuringHandOffTest {

    private static final long WAITER_WATCHDOG_MILLIS = 3000;
    /** The thread of ShardedChannels' line, in Logback's plain pattern or in Spring Boot's (once a test started an application in this JVM). */
    private static final Pattern ASKED = Pattern.compile("\\[\\s*([^\\]]+?)\\][^\\n]*?ShardedChannels\\s*(?:--|:) Lock release channels use");

    static RedisClusterProcesses cluster;
    private LettuceConnectionFactory factory;
    private RedisLocker holder;
    private WorkerProcess waiter;

    /** The first call of each kind that publishes, made by a Locker that has published nothing yet. */
    enum FirstCall {
        /** The everyday unlock, of an async handle, from a Redis reply's callback (the event loop), handing the lock to a waiter. */
        PLAIN_HAND_OFF_ON_THE_EVENT_LOOP,
        /** A fair lock taken and released, handing it to the fair waiter queued behind it. */
        FAIR_HAND_OFF,
        /** A read lock taken and released. */
        READ_WRITE_RELEASE,
        /** A wait queued behind another's lock that runs out and withdraws its place. */
        WITHDRAW
    }

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterProcesses.start(3, TestRedis::startNew);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @BeforeEach
    void connect() {
        factory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.addresses()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        holder = RedisLocker.builder(factory).watchdogTimeout(Duration.ofSeconds(3)).build();
    }

    @AfterEach
    void close() {
        if (waiter != null) {
            waiter.destroy();
        }
        holder.close();
        factory.destroy();
    }

    /**
     * The first unlock of an instance that never waited (so never asked the cluster whether it knows SPUBLISH) hands the lock to
     * a queued waiter: its short release finds the waiter's mark and the full release follows on the Redis client's event loop,
     * which before 2026-11-28 asked the cluster there, waited on itself for 10 s, and failed the unlock, the lock left held.
     */
    @Test
    void theFirstUnlockOfAnInstanceThatNeverWaitedHandsTheLockToAQueuedWaiterAtOnce() throws Exception {
        String key = "cluster-first-unlock-" + UUID.randomUUID();
        RedisLocker other = RedisLocker.builder(factory).watchdogTimeout(Duration.ofSeconds(3)).build();
        try {
            holder.lock(key);
            CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    boolean taken = other.tryLock(key, 20, -1, TimeUnit.SECONDS);
                    if (taken) {
                        other.unlock(key);
                    }
                    return taken;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
            String queue = Internals.plainLockKeys(LockerFixture.PREFIX, key).get(1);
            RedisServerProcess home = cluster.masters().get(ClusterTest.masterOf(key));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> Long.valueOf(1).equals(home.command("LLEN", queue)));

            long start = System.nanoTime();
            holder.unlock(key);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the unlock that hands the lock on").isLessThan(Duration.ofSeconds(2));
            assertThat(waiting.get(10, TimeUnit.SECONDS)).as("the waiter took the lock").isTrue();
        } finally {
            other.close();
        }
    }

    @Test
    void aLockHandedToAWaiterWhoseLockerClosesAsItResumesIsFreeWithinTheClaimLease() {
        String key = "cluster-close-hand-off-" + UUID.randomUUID();
        RedisServerProcess home = cluster.masters().get(ClusterTest.masterOf(key));
        String queue = Internals.plainLockKeys(LockerFixture.PREFIX, key).get(1);

        holder.lock(key);
        waiter = WorkerProcess.start("cluster-waiter", Path.of("target", "reliability", "cluster-close"), ClusterWaiter.class,
                List.of(String.join(",", cluster.addresses()), key, Long.toString(WAITER_WATCHDOG_MILLIS)));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> Long.valueOf(1).equals(home.command("LLEN", queue)));
        waiter.pause();
        holder.unlock(key); // hands the lock to the paused waiter in Redis
        assertThat(home.command("EXISTS", LockerFixture.PREFIX + key)).as("handed to the paused waiter").isEqualTo(1L);
        waiter.terminate(); // pending until the resume: its close then races the grant's delivery
        waiter.resume();
        long resumed = System.nanoTime();

        await().atMost(Duration.ofMillis(WAITER_WATCHDOG_MILLIS + 5000)).pollInterval(Duration.ofMillis(10))
                .until(() -> Long.valueOf(0).equals(home.command("EXISTS", LockerFixture.PREFIX + key)));
        long freeAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed);
        assertThat(waiter.awaitExit(10)).as("the waiter exited\n" + waiter.logTail()).isTrue();
        System.out.println("cluster close during hand-off: free " + freeAfter + " ms after the resume; waiter said:\n" + waiter.logTail());
        assertThat(freeAfter).as("ms the handed lock stayed after the waiter resumed and closed\n" + waiter.logTail())
                .isLessThanOrEqualTo(WAITER_WATCHDOG_MILLIS + 500);
        assertThat(holder.tryLock(key)).as("taken again").isTrue();
        holder.unlock(key);
    }

    @Test
    void aLockerOnAClusterLearnsHowToPublishAsItStartsOnTheThreadThatBuildsIt(CapturedOutput output) {
        int before = output.getOut().length();
        try (RedisLocker locker = RedisLocker.builder(factory).build()) {
            assertThat(askedOn(output.getOut().substring(before))).as("threads that asked the cluster whether it knows SPUBLISH")
                    .containsExactly(Thread.currentThread().getName());
        }
    }

    @ParameterizedTest
    @EnumSource(FirstCall.class)
    void theFirstCallOfEachKindThatPublishesAsksTheClusterNothing(FirstCall call, CapturedOutput output) throws Exception {
        String key = "publish-mode-" + call + "-" + UUID.randomUUID();
        try (RedisLocker locker = RedisLocker.builder(factory).watchdogTimeout(Duration.ofSeconds(3)).build();
             RedisAsyncLocker async = new RedisAsyncLocker(locker)) {
            int started = output.getOut().length();
            switch (call) {
                case PLAIN_HAND_OFF_ON_THE_EVENT_LOOP -> {
                    LockHandle handle = async.acquire(key, Duration.ZERO, null).get(10, TimeUnit.SECONDS);
                    CompletableFuture<Boolean> waiter = waitFor(() -> holder.tryLock(key, 20, -1, TimeUnit.SECONDS), () -> holder.unlock(key), key,
                            LockKeys.of(LockerFixture.PREFIX, key).waitQueue());
                    @SuppressWarnings("unchecked")
                    RedisAdvancedClusterAsyncCommands<byte[], byte[]> lettuce = (RedisAdvancedClusterAsyncCommands<byte[], byte[]>)
                            factory.getClusterConnection().getNativeConnection();
                    long start = System.nanoTime();
                    lettuce.ping().toCompletableFuture().thenCompose(pong -> async.release(handle)).get(10, TimeUnit.SECONDS);
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the release sent from the event loop").isLessThan(Duration.ofSeconds(2));
                    assertThat(waiter.get(10, TimeUnit.SECONDS)).as("the waiter took the lock").isTrue();
                }
                case FAIR_HAND_OFF -> {
                    locker.getFairLock(key).lock();
                    CompletableFuture<Boolean> waiter = waitFor(() -> holder.getFairLock(key).tryLock(20, TimeUnit.SECONDS), () -> holder.getFairLock(key).unlock(),
                            key, LockKeys.of(LockerFixture.PREFIX, key).queue());
                    locker.getFairLock(key).unlock();
                    assertThat(waiter.get(10, TimeUnit.SECONDS)).as("the fair waiter took the lock").isTrue();
                }
                case READ_WRITE_RELEASE -> {
                    locker.getReadWriteLock(key).readLock().lock();
                    locker.getReadWriteLock(key).readLock().unlock();
                }
                case WITHDRAW -> {
                    holder.lock(key);
                    assertThat(locker.tryLock(key, 300, -1, TimeUnit.MILLISECONDS)).as("a wait behind another's lock").isFalse();
                    holder.unlock(key);
                }
            }
            assertThat(askedOn(output.getOut().substring(started))).as("threads that asked the cluster whether it knows SPUBLISH during the call")
                    .isEmpty();
        }
    }

    /** {@code take}, then {@code release}, on a thread of its own, returned once it queued behind the lock ({@code queue}: the key of its queue). */
    private CompletableFuture<Boolean> waitFor(InterruptibleTake take, Runnable release, String key, String queue) {
        CompletableFuture<Boolean> taken = CompletableFuture.supplyAsync(() -> {
            try {
                boolean held = take.take();
                if (held) {
                    release.run();
                }
                return held;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        RedisServerProcess home = cluster.masters().get(ClusterTest.masterOf(key));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> Long.valueOf(1).equals(home.command("EXISTS", queue)));
        return taken;
    }

    private interface InterruptibleTake {
        boolean take() throws InterruptedException;
    }

    private static List<String> askedOn(String log) {
        Matcher asked = ASKED.matcher(log);
        return asked.results().map(match -> match.group(1)).toList();
    }
}
