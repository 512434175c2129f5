package io.github.redislock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipEvent;
import io.github.redislock.LeadershipListener;
import io.github.redislock.LockLostEvent;
import io.github.redislock.Locker;
import io.github.redislock.core.WatchdogState;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;

/**
 * One candidacy: a thread that waits for the role's lock (queued, woken by the hand-off or the end of
 * the holder's lease), leads while it holds it, and releases it when yielding, leaving or finding it lost.
 *
 * <p>The thread owns the lock, so only it takes and releases; the other methods set a reason to end
 * the leadership and wake it. It is interrupted only while it waits for the lock, never while it leads:
 * an interrupted thread would fail its Redis calls, the release among them.
 */
final class LockerCandidacy implements Candidacy, Runnable {

    private static final Log log = LogFactory.getLog(LockerLeaderElection.class);

    /** How often a leader looks at its hold when no {@link LockLostEvent} reaches it; a local check, no Redis call. */
    private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The pause after a failed wait (Redis unreachable) before the next. */
    private static final Duration RETRY_DELAY = Duration.ofMillis(500);
    /** The longest {@link #close} waits for the thread to release the role. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private enum Phase { WAITING, LEADING }

    private final String role;
    private final Locker locker;
    private final LeadershipListener listener;
    private final ApplicationEventPublisher events;
    private final Object source;
    private final Consumer<LockerCandidacy> onClosed;
    private final Thread thread;

    /** Changed by the thread only, under this object's monitor (see {@link #close}). */
    private Phase phase = Phase.WAITING;
    private volatile boolean leader;
    private volatile long term;
    /** When the current term was granted. */
    private volatile Instant grantedAt;
    /** Why the current leadership ends, once something ended it. */
    private volatile String end;
    private volatile boolean closed;

    LockerCandidacy(String role, Locker locker, LeadershipListener listener, ApplicationEventPublisher events, Object source,
                    Consumer<LockerCandidacy> onClosed) {
        this.role = role;
        this.locker = locker;
        this.listener = listener;
        this.events = events;
        this.source = source;
        this.onClosed = onClosed;
        this.thread = new Thread(this, "redis-lock-leader-" + role);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    @Override
    public String role() {
        return role;
    }

    /** Leads, and the lease is not in doubt: see {@link #leaseInDoubt()}. */
    @Override
    public boolean isLeader() {
        return leader && !leaseInDoubt();
    }

    @Override
    public long term() {
        long current = term;
        if (!isLeader()) {
            throw new IllegalStateException("This instance does not lead role '" + role + "' (or cannot be sure it still does), so it has no term");
        }
        return current;
    }

    /**
     * Whether the lease may have run out unnoticed: the watchdog renews every third of it, so two thirds
     * without a renewal (since the grant) mean this instance was paused or cut off from Redis, and the lock
     * may be another's already. Until the watchdog's next tick settles it, this instance does not count as
     * leader: a process resumed after a pause past its lease must not act on its old term even once.
     */
    private boolean leaseInDoubt() {
        if (!(locker instanceof WatchdogState.Source source)) {
            return false;
        }
        WatchdogState watchdog = source.watchdogState();
        Instant renewed = watchdog.lastRenewal();
        Instant since = renewed == null || renewed.isBefore(grantedAt) ? grantedAt : renewed;
        return Duration.between(since, Instant.now()).compareTo(watchdog.timeout().multipliedBy(2).dividedBy(3)) > 0;
    }

    @Override
    public void yield() {
        if (leader) {
            end = LeadershipEvent.YIELDED;
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void close() {
        closed = true;
        end = LeadershipEvent.LEFT;
        synchronized (this) {
            if (phase == Phase.WAITING) {
                thread.interrupt(); // withdraws the wait; nothing is held then
            }
        }
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread) {
            try {
                thread.join(CLOSE_WAIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                log.warn("The candidacy for role '" + role + "' did not end within " + CLOSE_WAIT.toSeconds()
                        + " s of leaving the election (a listener still busy?); the role is released when it ends");
            }
        }
        onClosed.accept(this);
    }

    /** The watchdog found a lock gone: when it is this leader's, it is revoked now. */
    void lockLost(LockLostEvent event) {
        if (leader && role.equals(event.getKey()) && event.getOwner().endsWith(":" + thread.getId())) {
            end = LeadershipEvent.LOST;
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        while (!closed) {
            boolean acquired;
            try {
                acquired = locker.tryLock(role, Locker.WAIT_FOREVER, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                continue; // close() withdrew the wait
            } catch (RuntimeException e) {
                log.warn("Waiting for the lock of role '" + role + "' failed; trying again in " + RETRY_DELAY.toMillis() + " ms", e);
                LockSupport.parkNanos(this, RETRY_DELAY.toNanos());
                continue;
            }
            synchronized (this) {
                phase = Phase.LEADING;
            }
            Thread.interrupted(); // one meant for the wait that arrived as it ended
            if (acquired) {
                lead();
            }
            synchronized (this) {
                phase = Phase.WAITING;
            }
        }
    }

    private void lead() {
        try {
            term = locker.fencingToken(role);
        } catch (IllegalMonitorStateException e) { // lost already
            release();
            return;
        }
        end = closed ? LeadershipEvent.LEFT : null;
        grantedAt = Instant.now();
        leader = true;
        tell(true, null);
        String reason = awaitEnd();
        leader = false;
        tell(false, reason); // before the release: the work stops before another instance may lead
        release();
    }

    private String awaitEnd() {
        while (true) {
            String reason = end;
            if (reason != null) {
                return reason;
            }
            try {
                locker.fencingToken(role); // throws once the watchdog found the hold gone
            } catch (IllegalMonitorStateException e) {
                return LeadershipEvent.LOST;
            }
            LockSupport.parkNanos(this, CHECK_NANOS);
        }
    }

    private void release() {
        try {
            locker.unlock(role);
        } catch (IllegalMonitorStateException e) {
            log.debug("The lock of role '" + role + "' was gone at its release: " + e.getMessage());
        } catch (RuntimeException e) {
            log.warn("Could not release the lock of role '" + role + "'; it frees itself when its lease runs out", e);
        }
    }

    private void tell(boolean granted, String reason) {
        long current = term;
        if (log.isInfoEnabled()) {
            log.info((granted ? "Leading role '" + role + "' in term " : "Revoked role '" + role + "' (" + reason + ") in term ") + current);
        }
        try {
            if (granted) {
                listener.granted(this, current);
            } else {
                listener.revoked(this, current, reason);
            }
        } catch (RuntimeException e) {
            log.warn("The leadership listener of role '" + role + "' failed on the " + (granted ? "grant" : "revocation") + " of term " + current, e);
        }
        try {
            events.publishEvent(new LeadershipEvent(source, role, current, granted, reason));
        } catch (RuntimeException e) {
            log.warn("Could not publish the " + (granted ? "grant" : "revocation") + " of role '" + role + "'", e);
        }
    }

    @Override
    public String toString() {
        return "Candidacy[role=" + role + (leader ? ", leading in term " + term : "") + "]";
    }
}
