package io.github.redislock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One application instance of the safety checker, run as its own JVM by {@link SafetyRun}: a
 * hand-wired Locker (what the auto-configuration builds) on the lock Redis, and a plain client on the
 * store Redis, the protected resource that records what happened.
 *
 * <p>Each of its threads (a separate lock owner) loops until told to stop: lock one of the keys, enter the critical section (the store counts
 * its occupants and records a violation when there is more than one), read-pause-write the key's
 * counter (fenced by the lock's token), leave, unlock. Every hold has a name of its own,
 * {@code <worker>.t<thread>#<n>} for the thread's n-th acquisition: the occupants, violations and lock
 * losses the store records name holds, so a loss explains only an overlap of the very hold that was
 * lost. Lock losses (LockLostEvent, LockLostException) and failures are written to the store as they
 * happen, so even a worker killed with {@code kill -9} leaves its record behind.
 *
 * <p>Arguments: {@code lockPort storePort workerId keyCount watchdogMillis commandTimeoutMillis holdMillis waitMillis maxRunMillis threads}.
 */
public final class SafetyWorker {

    private SafetyWorker() {
    }

    public static void main(String[] args) throws Exception {
        int lockPort = Integer.parseInt(args[0]);
        SafetyStore store = SafetyStore.connect(Integer.parseInt(args[1]));
        String worker = args[2];
        int keyCount = Integer.parseInt(args[3]);
        Duration watchdogTimeout = Duration.ofMillis(Long.parseLong(args[4]));
        Duration commandTimeout = Duration.ofMillis(Long.parseLong(args[5]));
        long holdMillis = Long.parseLong(args[6]);
        long waitMillis = Long.parseLong(args[7]);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[8]));
        int threads = Integer.parseInt(args[9]);

        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", lockPort),
                LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
        factory.afterPropertiesSet();
        factory.start();
        // '<threadId>|<key>' -> that thread's hold on that key now. A loss the watchdog reports after the hold ended (its
        // unlock then threw LockLostException, which named the hold) names none; one delivered after the thread took the
        // same key again would name the new hold, a window of the event's delivery time.
        Map<String, String> holdByOwnerThreadAndKey = new ConcurrentHashMap<>();
        RedisLocker locker = RedisLocker.builder(factory).keyPrefix(SafetyStore.LOCK_PREFIX).watchdogTimeout(watchdogTimeout)
                .callerConnections(LockerFixture.CALLER_CONNECTIONS).events(event -> {
            if (event instanceof LockLostEvent lost) {
                String threadId = lost.getOwner().substring(lost.getOwner().lastIndexOf(':') + 1);
                String hold = holdByOwnerThreadAndKey.getOrDefault(threadId + "|" + lost.getKey(), worker + ".ended-hold");
                store.lockLost(worker, hold, lost.getKey(), "LockLostEvent");
            }
        }).build();
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3))); // never outlive the test JVM
        store.started(worker, ProcessHandle.current().pid(), true);

        List<Thread> loops = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String occupant = worker + ".t" + t;
            Thread thread = new Thread(() -> {
                try {
                    loop(store, locker, holdByOwnerThreadAndKey, worker, occupant, keyCount, holdMillis, waitMillis, deadline);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, occupant);
            thread.start();
            loops.add(thread);
        }
        for (Thread thread : loops) {
            thread.join();
        }
        // Idle: report what this instance still holds or waits for, then wait to be told to exit.
        long idleSince = System.nanoTime();
        while (Internals.subscribedChannelCount(locker) > 0 && millisSince(idleSince) < 3000) {
            Thread.sleep(20);
        }
        store.idle(worker, locker.heldLockCount(), locker.waiterCount(), Internals.subscribedChannelCount(locker), locker.watchdogState().watchedCount());
        while (!store.exitRequested() && millisSince(idleSince) < 15_000) {
            Thread.sleep(20);
        }
        Runtime.getRuntime().halt(0); // everything worth knowing is in the store; a graceful client shutdown only costs time
    }

    private static void loop(SafetyStore store, RedisLocker locker, Map<String, String> holdByOwnerThreadAndKey, String worker, String occupant,
                             int keyCount, long holdMillis, long waitMillis, long deadline) throws InterruptedException {
        String threadId = Long.toString(Thread.currentThread().getId());
        long holds = 0;
        while (!store.stopRequested() && System.nanoTime() < deadline) {
            String key = "k" + ThreadLocalRandom.current().nextInt(keyCount);
            long start = System.nanoTime();
            boolean acquired;
            try {
                acquired = locker.tryLock(key, waitMillis, RedisLocker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                store.failed(worker, "tryLock", e, millisSince(start));
                Thread.sleep(20); // the lock Redis is unreachable: do not spin
                continue;
            }
            if (!acquired) {
                store.count(worker, "waitsTimedOut");
                continue;
            }
            String hold = occupant + "#" + ++holds;
            holdByOwnerThreadAndKey.put(threadId + "|" + key, hold);
            try {
                criticalSection(store, worker, hold, key, locker.fencingToken(key), holdMillis);
            } finally {
                long unlockStart = System.nanoTime();
                try {
                    locker.unlock(key);
                } catch (LockLostException e) {
                    store.lockLost(worker, hold, key, "LockLostException");
                } catch (RuntimeException e) {
                    store.failed(worker, "unlock", e, millisSince(unlockStart));
                } finally {
                    holdByOwnerThreadAndKey.remove(threadId + "|" + key);
                }
            }
        }
    }

    private static void criticalSection(SafetyStore store, String worker, String hold, String key, long token, long holdMillis)
            throws InterruptedException {
        store.enter(hold, key);
        long value = store.readCounter(key, token);
        if (store.freezeRequested(worker)) {
            // Stay inside, between read and write, until the checker has paused (or killed) this process and lets it go on.
            store.frozenInside(worker, key);
            long since = System.nanoTime();
            while (!store.thawed(worker) && millisSince(since) < 20_000) {
                Thread.sleep(10);
            }
        }
        Thread.sleep(holdMillis);
        if (!store.write(hold, key, value + 1, Optional.of(token))) {
            store.count(worker, "fencedWrites");
        }
        store.leave(hold, key);
        store.count(worker, "sections");
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
