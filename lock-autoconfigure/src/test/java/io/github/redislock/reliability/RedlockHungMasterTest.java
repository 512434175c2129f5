package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostEvent;
import io.github.redislock.core.RedlockLocker;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.RedlockMasters;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The blocking Redlock locker while one of its three masters hangs: it runs what it is sent (behind a {@link FaultProxy}
 * that holds every reply back) and answers nothing until the test lets the replies go. Every call ends within its wait
 * or node timeout on the quorum of the other two, and once the hung master answers again no copy of any lock is left.
 */
class RedlockHungMasterTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);
    /** Node timeout: how long a round waits for the masters' replies. */
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(300);
    /** A call's bound beyond what it waits: a round's node timeout and the scheduling of a loaded machine. */
    private static final Duration SLACK = Duration.ofMillis(1500);

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private final List<RedlockLocker> lockers = new ArrayList<>();
    private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
    private FaultProxy hung;
    /** Holds the lock a waiter waits for. */
    private RedlockLocker holder;
    private String key;

    @BeforeEach
    void proxyTheFirstMaster() {
        hung = new FaultProxy(masters.get(0).port());
        key = "hung-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        hung.heal();
        lockers.forEach(RedlockLocker::close);
        factories.forEach(LettuceConnectionFactory::destroy);
        hung.close();
    }

    @Test
    void aWaitForALockHeldElsewhereTakesItOnTheOtherTwoWhenItIsReleased() throws Exception {
        RedlockLocker waiter = waiterWhileHeldElsewhereAndAMasterHangs();
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            assertThat(tryLock(waiter, Duration.ofSeconds(8))).as("the waiter got the lock").isTrue();
            long at = System.nanoTime();
            waiter.unlock(key);
            return at;
        });

        long releasedAt = System.nanoTime();
        holder.unlock(key);
        assertThat(Duration.ofNanos(acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt)).as("from the release to the waiter's hold").isLessThan(SLACK);

        hung.releaseReplies();
        awaitNoCopyLeft();
    }

    @Test
    void anInterruptedWaitEndsAtOnceAndLeavesNoCopyOnceTheHungMasterAnswers() throws Exception {
        RedlockLocker waiter = waiterWhileHeldElsewhereAndAMasterHangs();
        CompletableFuture<Thread> thread = new CompletableFuture<>();
        CompletableFuture<Object> waiting = waitUpTo30Seconds(waiter, thread);
        await().atMost(Duration.ofSeconds(5)).until(() -> thread.isDone() && thread.join().getState() != Thread.State.RUNNABLE);

        long interruptedAt = System.nanoTime();
        thread.join().interrupt();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).as("the wait's outcome").isInstanceOf(InterruptedException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - interruptedAt)).as("from the interrupt to the end of the wait").isLessThan(SLACK);
        assertThat(waiter.heldLockCount()).isZero();

        holder.unlock(key);
        hung.releaseReplies();
        awaitNoCopyLeft();
    }

    /**
     * A master that runs nothing while it hangs (CLIENT PAUSE) and is free of the lock the others hold for another owner:
     * every round of the wait queues an acquire there, each of which would take it. Interrupted, the wait leaves nothing
     * behind once the master runs them and the undos their late answers call for.
     */
    @Test
    void anInterruptedWaitLeavesNoCopyOnAMasterThatRanItsQueuedAttemptsLate() throws Exception {
        RedlockLocker waiter = locker(Duration.ofSeconds(10)); // a copy left would outlive the checks below: only an undo removes it in time
        for (int i = 1; i < 3; i++) {
            masters.get(i).command("HSET", "lock:" + key, "someone-else:1", "1");
            masters.get(i).command("PEXPIRE", "lock:" + key, "30000");
        }
        masters.get(0).command("CLIENT", "PAUSE", "1500");
        CompletableFuture<Thread> thread = new CompletableFuture<>();
        CompletableFuture<Object> waiting = waitUpTo30Seconds(waiter, thread);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone()); // several rounds queued

        thread.join().interrupt();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).as("the wait's outcome").isInstanceOf(InterruptedException.class);

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(masters.get(0).command("EXISTS", "lock:" + key)).as("a copy on the master that hung").isEqualTo(0L));
        for (int i = 1; i < 3; i++) {
            masters.get(i).command("DEL", "lock:" + key);
        }
        awaitNoCopyLeft();
    }

    @Test
    void anUnlockReturnsWithinTheNodeTimeoutAndTheHungMastersCopyGoesOnceItAnswers() throws Exception {
        RedlockLocker client = locker(Duration.ofSeconds(3));
        holdOnEveryMaster(client);
        hung.holdReplies();

        long start = System.nanoTime();
        client.unlock(key);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the unlock").isLessThan(SLACK);
        assertThat(masters.get(1).command("EXISTS", "lock:" + key)).isEqualTo(0L);
        assertThat(masters.get(2).command("EXISTS", "lock:" + key)).isEqualTo(0L);
        assertThat(client.tryLock(key)).as("taken again on the other two").isTrue();
        client.unlock(key);

        hung.releaseReplies();
        awaitNoCopyLeft();
    }

    @Test
    void theWatchdogKeepsALockOnTheOtherTwoWhileAMasterHangsForSeveralLeases() {
        RedlockLocker client = locker(Duration.ofSeconds(1));
        RedlockLocker other = locker(Duration.ofSeconds(1));
        holdOnEveryMaster(client);
        hung.holdReplies();

        await().during(Duration.ofMillis(3500)).atMost(Duration.ofSeconds(5)).until(lost::isEmpty); // 3.5 validity periods
        assertThat(client.isHeldByCurrentThread(key)).isTrue();
        assertThat(other.tryLock(key)).as("another client while the lock is kept on two of three").isFalse();

        client.unlock(key);
        hung.releaseReplies();
        awaitNoCopyLeft();
    }

    /** A wait on a thread of its own, which {@code thread} names; completes with its outcome, or the InterruptedException that ended it. */
    private CompletableFuture<Object> waitUpTo30Seconds(RedlockLocker waiter, CompletableFuture<Thread> thread) {
        return CompletableFuture.supplyAsync(() -> {
            thread.complete(Thread.currentThread());
            try {
                return waiter.tryLock(key, 30, -1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return e;
            }
        });
    }

    /** Another client takes the lock, then the first master hangs; returns a client to wait for it. */
    private RedlockLocker waiterWhileHeldElsewhereAndAMasterHangs() {
        holder = locker(Duration.ofSeconds(3));
        RedlockLocker waiter = locker(Duration.ofSeconds(3));
        holdOnEveryMaster(holder);
        hung.holdReplies();
        return waiter;
    }

    /** Takes the lock, which must then be on all three masters: a master that missed the round would make a hung one the quorum's tie-break. */
    private void holdOnEveryMaster(RedlockLocker locker) {
        locker.lock(key);
        assertThat(masters.copiesOf("lock:" + key)).as("copies of '%s' before a master hangs", key).isEqualTo(3);
    }

    private void awaitNoCopyLeft() {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(masters.copiesOf("lock:" + key)).as("copies of '%s' on the masters", key).isZero());
    }

    private boolean tryLock(RedlockLocker locker, Duration wait) {
        try {
            return locker.tryLock(key, wait.toMillis(), -1, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A locker on the three masters, the first through the proxy; {@code watchdogTimeout} is its locks' validity. */
    private RedlockLocker locker(Duration watchdogTimeout) {
        List<RedisConnectionFactory> nodes = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < masters.size(); i++) {
            RedisServerProcess master = masters.get(i);
            int port = i == 0 ? hung.port() : master.port();
            LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(master.host(), port),
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
            factory.afterPropertiesSet();
            factory.start();
            factories.add(factory);
            nodes.add(factory);
            names.add(master.host() + ":" + port);
        }
        RedlockLocker locker = new RedlockLocker(nodes, names, NODE_TIMEOUT, Duration.ofMillis(20), watchdogTimeout, "lock:", event -> {
            if (event instanceof LockLostEvent loss) {
                lost.add(loss);
            }
        });
        lockers.add(locker);
        String warmUp = "warm-up-" + UUID.randomUUID(); // connects to every master and loads the scripts, within the node timeout from then on
        locker.lock(warmUp);
        locker.unlock(warmUp);
        return locker;
    }
}
