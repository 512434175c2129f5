package io.github.redislock.leader;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;

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
 * Stopped (its election stopped with its context), it hands the role on and its thread ends; started
 * again, a new thread runs for the role. Only {@link #close()} ends it for good.
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

    /**
     * The thread of the current run, or null while stopped. A run ends with {@link #stop()} and a new
     * thread begins with {@link #start()}, so the candidacy survives a stopped and restarted context.
     */
    private Thread thread;
    /** The thread of the latest run, ended or not; the next run waits for it to end. */
    private Thread lastRun;
    /** The run before the current one, which the current one waits for; set by {@link #start()}. */
    private Thread previous;
    /** Changed by the run's thread only, under this object's monitor (see {@link #stop}). */
    private Phase phase = Phase.WAITING;
    private volatile boolean leader;
    private volatile long term;
    /** {@link System#nanoTime()} as the current term was granted: a monotonic clock, which no wall-clock step moves. */
    private volatile long grantedNanos;
    /** The renewals of the current term's hold, found on the run's thread (its owner) at the grant. */
    private volatile Supplier<OptionalLong> roleRenewals = OptionalLong::empty;
    /** The watchdog's {@link WatchdogState#stoppedRenewing()} then: while it stays, a clean tick since renewed the role's lock too. */
    private volatile long stoppedAtGrant;
    /**
     * Why the current leadership ends, once something ended it. Reset for a new term and set by
     * {@link #stop} under this object's monitor, so a stop racing a grant is never overwritten.
     */
    private volatile String end;
    /** For good: {@link #start()} does nothing then. */
    private boolean closed;

    LockerCandidacy(String role, Locker locker, LeadershipListener listener, ApplicationEventPublisher events, Object source,
                    Consumer<LockerCandidacy> onClosed) {
        this.role = role;
        this.locker = locker;
        this.listener = listener;
        this.events = events;
        this.source = source;
        this.onClosed = onClosed;
    }

    /**
     * Runs for the role on a new thread, unless it runs already or was closed. A run that {@link #endRun}
     * ended may still be releasing the role: the new thread waits for it to end before it competes, so
     * one candidacy never has two threads taking part at once.
     */
    synchronized void start() {
        if (closed || thread != null) {
            return;
        }
        Thread run = new Thread(this, "redis-lock-leader-" + role);
        run.setDaemon(true);
        previous = lastRun;
        lastRun = run;
        thread = run;
        run.start();
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
     * without a renewal of the role's lock (since the grant) mean this instance was paused or cut off from
     * Redis, and the lock may be another's already. Until the watchdog's next tick settles it, this instance
     * does not count as leader: a process resumed after a pause past its lease must not act on its old term
     * even once. Measured on the monotonic clock from when the last renewal of that lock was sent, as its
     * lease runs from then: a wall clock stepped back or forward, a renewal's reply that came late, or other
     * locks of the same tick that failed or were found lost, must not move it. A clean tick (every call
     * answered, nothing found lost) since the grant renewed the role's lock too while the watchdog has
     * stopped renewing no lock since, so the usual answer needs no look at the role's own renewal (one map look).
     */
    private boolean leaseInDoubt() {
        if (!(locker instanceof WatchdogState.Source source)) {
            return false;
        }
        WatchdogState watchdog = source.watchdogState();
        long doubtNanos = watchdog.timeout().toNanos() * 2 / 3;
        if (watchdog.lastRenewal() != null && watchdog.stoppedRenewing() == stoppedAtGrant && doubtAfter(watchdog.lastRenewalSentNanos()) <= doubtNanos) {
            return false;
        }
        OptionalLong renewed = roleRenewals.get();
        return doubtAfter(renewed.isPresent() ? renewed.getAsLong() : grantedNanos) > doubtNanos;
    }

    /** Nanoseconds since the later of the grant and {@code renewedNanos}. */
    private long doubtAfter(long renewedNanos) {
        return System.nanoTime() - (renewedNanos - grantedNanos > 0 ? renewedNanos : grantedNanos);
    }

    @Override
    public void yield() {
        Thread run = currentThread();
        if (leader && run != null) {
            end = LeadershipEvent.YIELDED;
            LockSupport.unpark(run);
        }
    }

    /** Leaves the election for good: a leader hands its role on. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        stop();
        onClosed.accept(this);
    }

    /**
     * Ends the current run: a leader is revoked and hands its role on, a waiting candidate withdraws its
     * wait. Waits (a bounded time) for that, unless called by the run's own thread (a listener).
     */
    void stop() {
        awaitEnded(endRun());
    }

    /**
     * Tells the current run to end and returns its thread (null when none runs), without waiting: the
     * election ends every run under its own monitor, so a racing {@link LockerLeaderElection#start()}
     * sees all of them ended or none, and then waits for them outside it.
     */
    synchronized Thread endRun() {
        Thread run = thread;
        if (run == null) {
            return null;
        }
        thread = null;
        end = LeadershipEvent.LEFT;
        if (phase == Phase.WAITING) {
            run.interrupt(); // withdraws the wait; nothing is held then
        }
        LockSupport.unpark(run);
        return run;
    }

    /** Waits (a bounded time) for a run that {@link #endRun} ended, unless called by that run's own thread (a listener). */
    void awaitEnded(Thread run) {
        if (run == null || Thread.currentThread() == run) {
            return;
        }
        try {
            run.join(CLOSE_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (run.isAlive()) {
            log.warn("The candidacy for role '" + role + "' did not end within " + CLOSE_WAIT.toSeconds()
                    + " s of leaving the election (a listener still busy?); the role is released when it ends");
        }
    }

    /** Whether {@code run} is still the thread of the current run, not one that {@link #stop} ended. */
    private synchronized boolean isCurrent(Thread run) {
        return thread == run;
    }

    /**
     * The watchdog found a lock gone: when it is this leader's hold of its current term, it is revoked
     * now. An event of an earlier term (events are delivered off the watchdog's thread, possibly after
     * a new grant) carries that term's token and is ignored; so is one with token 0, of a hold lost before
     * its term was drawn, which was never granted. The current term's hold drew its token before the
     * grant; a loss reported before that draw's reply came is found by {@link #awaitEnd}'s look instead.
     */
    void lockLost(LockLostEvent event) {
        Thread run = currentThread();
        if (leader && run != null && role.equals(event.getKey()) && event.getOwner().endsWith(":" + run.getId())
                && event.getFencingToken() == term) {
            end = LeadershipEvent.LOST;
            LockSupport.unpark(run);
        }
    }

    /**
     * Waits for the run before this one to end (it may still be releasing the role), then takes the
     * phase over; false when this run was ended meanwhile.
     */
    private boolean awaitPreviousRun(Thread me) {
        Thread before;
        synchronized (this) {
            before = previous;
        }
        try {
            if (before != null) {
                before.join();
            }
        } catch (InterruptedException e) {
            return false; // endRun() ended this run while it waited
        }
        synchronized (this) {
            phase = Phase.WAITING;
            return thread == me;
        }
    }

    private synchronized Thread currentThread() {
        return thread;
    }

    @Override
    public void run() {
        Thread me = Thread.currentThread();
        if (!awaitPreviousRun(me)) {
            return;
        }
        while (isCurrent(me)) {
            boolean acquired;
            try {
                acquired = locker.tryLock(role, Locker.WAIT_FOREVER, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                continue; // stop() withdrew the wait
            } catch (RuntimeException e) {
                if (closed(locker)) { // for good: retrying would warn every half second for as long as the process lives
                    log.warn("The Locker of role '" + role + "' is closed; its candidacy ends (join again on an open Locker)", e);
                    close();
                    continue;
                }
                log.warn("Waiting for the lock of role '" + role + "' failed; trying again in " + RETRY_DELAY.toMillis() + " ms", e);
                LockSupport.parkNanos(this, RETRY_DELAY.toNanos());
                continue;
            }
            boolean granted;
            synchronized (this) { // no stop() between the check and the new term's end being reset
                granted = acquired && thread == me;
                phase = Phase.LEADING; // no more interrupts: they are for waits
                if (granted) {
                    end = null;
                }
            }
            Thread.interrupted(); // one meant for the wait that arrived as it ended
            if (granted) {
                lead();
            } else if (acquired) {
                release(); // stopped as the lock came: given back, never granted
            }
            synchronized (this) {
                phase = Phase.WAITING;
            }
        }
    }

    /** Whether {@code locker} is one of ours that is closed, and so takes no lock any more. */
    static boolean closed(Locker locker) {
        return locker instanceof WatchdogState.Source source && source.watchdogState().lockerClosed();
    }

    private void lead() {
        WatchdogState watchdog = locker instanceof WatchdogState.Source source ? source.watchdogState() : null;
        long stopped = watchdog != null ? watchdog.stoppedRenewing() : 0;
        long confirmedNanos = System.nanoTime();
        try {
            if (!reentered()) {
                release();
                return;
            }
            term = locker.fencingToken(role); // drawn now, on this run's own thread: one round trip per grant, then kept on the hold
        } catch (RuntimeException e) { // lost already (IllegalMonitorStateException), or the term's draw got no reply
            if (!(e instanceof IllegalMonitorStateException)) {
                log.warn("Could not draw the term of role '" + role + "' before leading; it is given back", e);
            }
            release();
            return;
        }
        roleRenewals = watchdog != null ? watchdog.renewalsOfHeld(role) : OptionalLong::empty;
        grantedNanos = confirmedNanos;
        stoppedAtGrant = stopped;
        leader = true;
        tell(true, null);
        String reason = awaitEnd();
        leader = false;
        tell(false, reason); // before the release: the work stops before another instance may lead
        release();
    }

    /**
     * Enters the lock once more, and leaves that hold again, before the grant: the lease is then known to
     * run from now, not from when Redis gave the lock, which a pause of this process in between (a GC, a
     * SIGSTOP) may have put past its end, the lock another instance's already; the re-entry then fails.
     * Two round trips per grant.
     */
    private boolean reentered() {
        try {
            if (!locker.tryLock(role, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS)) {
                return false; // another owner holds it
            }
            locker.unlock(role);
            return true;
        } catch (IllegalMonitorStateException e) { // the watchdog found the hold gone, and warned of it: no grant, and no stack trace
            log.debug("The lock of role '" + role + "' was lost before the grant; it is waited for again: " + e.getMessage());
            return false;
        } catch (InterruptedException | RuntimeException e) {
            log.warn("Could not confirm the lock of role '" + role + "' before leading; it is given back", e);
            return false;
        }
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
