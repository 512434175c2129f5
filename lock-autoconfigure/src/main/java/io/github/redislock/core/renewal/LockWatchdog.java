package io.github.redislock.core.renewal;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockObserver;
import io.github.redislock.observation.FailSafeLockObserver;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.StampedLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Keeps every lock held without a lease alive: one thread, every {@code timeout / 3}, renews all of
 * them in batches (never a timer per lock). A lock is renewed to {@code timeout}, so it survives two
 * missed ticks and still frees itself within {@code timeout} after its instance dies.
 *
 * <p>{@link #unwatch} waits only while a tick sends its renewals, never while it waits for their replies:
 * once it returns no renewal of that lock can be sent any more, and one already sent is on the
 * connection ahead of the unlock that unwatched first, so Redis runs it before the release. A node
 * that hangs holds up the tick's wait for that node's reply, not the unlocks of locks on the others.
 */
public final class LockWatchdog implements AutoCloseable {

    private static final Log log = LogFactory.getLog(LockWatchdog.class);
    private static final Long UNRENEWED = Long.MIN_VALUE; // boxed once: a watch boxes nothing

    private final Duration timeout;
    private final RenewalClient client;
    private final LockObserver listener;
    /** Each watched lock, with {@link System#nanoTime()} as the last tick that renewed it was sent, or {@link #UNRENEWED} until one has. */
    private final Map<WatchedLock, Long> watched = new ConcurrentHashMap<>();
    /** Ticks take it exclusively while they send, unwatches shared (a ReentrantReadWriteLock's read lock adds a thread-local per unwatch). */
    private final StampedLock renewalGate = new StampedLock();
    /** The thread that holds the gate to send, which a lost lock's handling (see stopRenewing) may lead back to unwatch: it needs no gate. */
    private volatile Thread sending;
    private final ScheduledExecutorService scheduler;

    private volatile Instant lastRenewal;
    private volatile long lastRenewalSentNanos;
    /** Written by the ticks' one thread only. */
    private volatile long stoppedRenewing;
    private volatile int consecutiveFailures;
    private volatile Instant failingSince;
    private volatile long failingSinceNanos;
    /** Whether the application context is stopped (its connection factory refusing every call), and how many stops began. */
    private volatile boolean contextStopped;
    private volatile int contextStops;
    /** Written by the ticks' one thread only: the stop whose failed ticks it has said, once each. */
    private int stopSaid;

    public LockWatchdog(Duration timeout, RenewalClient client, LockObserver listener) {
        this.timeout = checkedTimeout(timeout);
        this.client = client;
        this.listener = FailSafeLockObserver.of(listener); // a throwing listener must neither fail a tick nor end the schedule
        this.scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("redis-lock-watchdog"));
        long period = renewalInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::renewSafely, period, period, TimeUnit.MILLISECONDS);
    }

    public static Duration checkedTimeout(Duration timeout) {
        if (timeout == null || timeout.toMillis() < 3) {
            throw new IllegalArgumentException("watchdogTimeout (redis-lock.watchdog-timeout) must be at least 3 ms, but was " + timeout);
        }
        return timeout;
    }

    public Duration timeout() {
        return timeout;
    }

    public Duration renewalInterval() {
        return Duration.ofMillis(Math.max(1, timeout.toMillis() / 3));
    }

    public void watch(WatchedLock lock) {
        watched.putIfAbsent(lock, UNRENEWED);
    }

    /** Stops renewing {@code lock}; waits for a tick that is sending its renewals (see the class comment). */
    public void unwatch(WatchedLock lock) {
        if (sending == Thread.currentThread()) {
            watched.remove(lock);
            return;
        }
        long stamp = renewalGate.readLock();
        try {
            watched.remove(lock);
        } finally {
            renewalGate.unlockRead(stamp);
        }
    }

    public int watchedCount() {
        return watched.size();
    }

    public Instant lastRenewal() {
        return lastRenewal;
    }

    public long lastRenewalSentNanos() {
        return lastRenewalSentNanos;
    }

    /** When the last tick that renewed {@code lock} was sent, its lease running from then; empty while none has, or once it is not watched. */
    public OptionalLong renewalSentNanos(WatchedLock lock) {
        Long sent = watched.get(lock);
        return sent == null || sent.equals(UNRENEWED) ? OptionalLong.empty() : OptionalLong.of(sent);
    }

    public long stoppedRenewing() {
        return stoppedRenewing;
    }

    public int consecutiveFailures() {
        return consecutiveFailures;
    }

    public Instant failingSince() {
        return failingSince;
    }

    public long failingSinceNanos() {
        return failingSinceNanos;
    }

    /** The application context stopped ({@code true}) or started again: meanwhile renewal pauses, as its connection factory refuses every call. */
    public void contextStopped(boolean stopped) {
        contextStops += stopped ? 1 : 0; // the lifecycle's one thread
        contextStopped = stopped;
    }

    /** Runs one renewal tick now, on the calling thread; the replies are awaited outside the gate. */
    public void renewNow() {
        List<WatchedLock> batch;
        RenewalClient.Sent sent;
        long sentNanos = System.nanoTime();
        long stamp = renewalGate.writeLock();
        sending = Thread.currentThread();
        try {
            for (WatchedLock lock : watched.keySet()) {
                String thread = lock.terminatedOwnerThread();
                if (thread != null) { // nobody can release it: renewing it would keep it taken until this instance stops
                    stopRenewing(lock, "is held by thread '" + thread + "' (owner " + lock.ownerField()
                            + "), which terminated without unlocking it; it is no longer renewed and Redis frees it within " + timeout,
                            LockLostEvent.OWNER_THREAD_TERMINATED);
                }
            }
            batch = new ArrayList<>(watched.keySet());
            sent = batch.isEmpty() ? null : client.send(batch, timeout.toMillis());
        } finally {
            sending = null;
            renewalGate.unlockWrite(stamp);
        }
        if (sent != null) {
            Set<WatchedLock> lost;
            RenewalClient.PartialRenewalException partial = null;
            try {
                lost = sent.lost();
            } catch (RenewalClient.PartialRenewalException e) {
                lost = e.lost;
                partial = e;
            }
            for (WatchedLock lock : lost) {
                stopRenewing(lock, "is no longer held by " + lock.ownerField()
                        + " (expired, deleted or lost in a Redis restart); it is no longer renewed", LockLostEvent.EXPIRED_OR_DELETED);
            }
            Set<WatchedLock> unrenewed = partial == null ? Set.of() : partial.unrenewed;
            // The send, not the reply's arrival: a late reply must not extend a lease in its leader's eyes. A lock found lost is unwatched already.
            batch.stream().filter(lock -> !unrenewed.contains(lock)).forEach(lock -> watched.replace(lock, sentNanos));
            if (unrenewed.size() < batch.size()) { // the calls that answered count as they went; renewSafely counts the others as failed
                listener.renewed(batch.size() - unrenewed.size() - lost.size(), lost.size());
            }
            if (partial != null) {
                throw partial;
            }
            if (lost.isEmpty()) { // a tick that found a lock gone renewed none of it: its holder (a leader) must not read it as renewed
                lastRenewalSentNanos = sentNanos;
                lastRenewal = Instant.now();
            }
        }
        consecutiveFailures = 0;
        failingSince = null;
    }

    private void stopRenewing(WatchedLock lock, String why, String reason) {
        if (watched.remove(lock) != null) {
            stoppedRenewing++;
            log.warn("Lock " + lock.redisKey() + " " + why);
            try {
                lock.lost(reason);
            } catch (RuntimeException e) {
                log.warn("Handling the loss of lock " + lock.redisKey() + " failed", e);
            }
        }
    }

    private void renewSafely() {
        try {
            renewNow();
        } catch (RuntimeException e) {
            if (consecutiveFailures++ == 0) {
                failingSinceNanos = System.nanoTime(); // before the instant that readers test for null
                failingSince = Instant.now();
            }
            int unrenewed = e instanceof RenewalClient.PartialRenewalException partial ? partial.unrenewed.size() : watched.size();
            String failed = "Watchdog could not renew " + unrenewed + " lock(s) (" + consecutiveFailures + " failure(s) in a row)";
            if (!contextStopped) {
                log.warn(failed + "; retrying in " + renewalInterval().toMillis() + " ms: " + e, e);
            } else if (stopSaid != contextStops) { // each tick fails alike until the start: said once, not as a failure every tick
                stopSaid = contextStops;
                log.warn(failed + ": the application context is stopped, so its locks are not renewed until it starts again, and one that"
                        + " the stop outlasts by " + timeout + " expires; the failed ticks are logged at DEBUG until then: " + e);
            } else {
                log.debug(failed + " while the application context is stopped: " + e, e);
            }
            listener.renewalFailed(unrenewed, e);
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        watched.clear();
    }
}
