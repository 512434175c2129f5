package io.github.redislock.leader;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.redislock.Candidacy;
import io.github.redislock.LeaderElection;
import io.github.redislock.LeadershipListener;
import io.github.redislock.LockLostEvent;
import io.github.redislock.Locker;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;

/**
 * The {@link LeaderElection} on a {@link Locker}: a role is the lock of its name, held by a thread of the
 * candidacy that waits for it in the lock's queue, and kept by the Locker's watchdog while it leads.
 *
 * <p>The role's lease is the Locker's watchdog timeout: an instance killed while leading frees the
 * role within it. So give the roles a Locker with a short timeout (the auto-configuration builds one per
 * {@code redis-lock.leader.lease}), not the 30 s default of an application's Locker.
 *
 * <p>A lost lock revokes its leader when the Locker's watchdog finds it gone: at once when the Locker's
 * {@link LockLostEvent}s reach {@link #onApplicationEvent} (as they do when this is a Spring bean), else
 * within a tenth of a second.
 *
 * <p>It needs the Locker's fencing tokens, which are its terms: a Redlock Locker
 * ({@code redis-lock.redlock.nodes}) is refused when a role would run on it.
 *
 * <p>{@link #stop()} and {@link #start()} follow its context's lifecycle: a stopped context hands its
 * roles on and leads them again once started; only {@link #close()} is for good.
 */
public class LockerLeaderElection implements LeaderElection, ApplicationListener<LockLostEvent>, AutoCloseable {

    private final Function<String, Locker> lockers;
    private final ApplicationEventPublisher events;
    private final Set<LockerCandidacy> candidacies = ConcurrentHashMap.newKeySet();
    /** Whether candidacies run; guarded by {@code candidacies}, like {@link #closed}. */
    private boolean running = true;
    private boolean closed;

    /**
     * Every role on {@code locker}; no {@link io.github.redislock.LeadershipEvent}s are published.
     *
     * @throws IllegalArgumentException when {@code locker} gives no fencing tokens (Redlock), which are the terms
     */
    public LockerLeaderElection(Locker locker) {
        this(role -> locker, event -> {
        });
        FencingTokenLockers.require(Objects.requireNonNull(locker, "locker"), "LockerLeaderElection");
    }

    /**
     * @param lockers the Locker of each role, whose watchdog timeout is the role's lease
     * @param events  receives a {@link io.github.redislock.LeadershipEvent} for every grant and revocation
     */
    public LockerLeaderElection(Function<String, Locker> lockers, ApplicationEventPublisher events) {
        this.lockers = Objects.requireNonNull(lockers, "lockers");
        this.events = Objects.requireNonNull(events, "events");
    }

    /**
     * @throws IllegalArgumentException when the role is no valid key, or its Locker gives no fencing tokens (Redlock)
     * @throws IllegalStateException    when the election, or the role's Locker, is closed
     */
    @Override
    public Candidacy join(String role, LeadershipListener listener) {
        Objects.requireNonNull(listener, () -> "The leadership listener of role '" + role + "' must not be null");
        if (role == null || role.isBlank()) {
            throw new IllegalArgumentException("A leader role must be a non-blank lock key, but was " + (role == null ? "null" : "'" + role + "'"));
        }
        if (isClosed()) {
            throw closed(role);
        }
        Locker locker = FencingTokenLockers.require(lockers.apply(role), "The leader election of role '" + role + "'");
        if (LockerCandidacy.closed(locker)) {
            throw new IllegalStateException("The Locker is closed: a candidacy for role '" + role + "' on it could never lead; join on an open Locker");
        }
        locker.getLock(role); // checks the key here, not later on the candidacy's thread; no Redis call: its thread retries those
        LockerCandidacy candidacy = new LockerCandidacy(role, locker, listener, events, this, candidacies::remove);
        synchronized (candidacies) {
            if (closed) {
                throw closed(role);
            }
            candidacies.add(candidacy);
            if (running) {
                candidacy.start();
            }
        }
        return candidacy;
    }

    private boolean isClosed() {
        synchronized (candidacies) {
            return closed;
        }
    }

    private static IllegalStateException closed(String role) {
        return new IllegalStateException("The leader election is closed (its application context has shut down); cannot join role '" + role + "'");
    }

    /** Revokes the leader whose role's lock the watchdog found gone. */
    @Override
    public void onApplicationEvent(LockLostEvent event) {
        candidacies.forEach(candidacy -> candidacy.lockLost(event));
    }

    /**
     * Stops every candidacy until {@link #start()}: leaders hand their roles on, waiting candidates
     * withdraw. The candidacies stay joined, and a role joined meanwhile runs from {@code start()} on.
     * For a context that stops to start again ({@code context.stop()}, a checkpoint); {@link #close()}
     * ends the election for good.
     */
    public void stop() {
        endEvery(false);
    }

    /** Runs every joined candidacy again after {@link #stop()}; nothing once closed. */
    public void start() {
        synchronized (candidacies) {
            if (closed || running) {
                return;
            }
            running = true;
            candidacies.forEach(LockerCandidacy::start);
        }
    }

    /** Closes every candidacy: leaders hand their roles on, and the election takes no candidate any more. */
    @Override
    public void close() {
        endEvery(true);
        candidacies.forEach(LockerCandidacy::close);
    }

    /**
     * Ends every run in one step under the monitor that {@link #start()} takes, so a start racing it
     * finds every candidacy running or every one stopped, never some of each; then waits for the runs
     * to end outside it (a listener may call back into the election meanwhile).
     */
    private void endEvery(boolean forGood) {
        List<Thread> ended = new ArrayList<>();
        List<LockerCandidacy> stopped = new ArrayList<>();
        synchronized (candidacies) {
            closed |= forGood;
            running = false;
            for (LockerCandidacy candidacy : candidacies) {
                ended.add(candidacy.endRun());
                stopped.add(candidacy);
            }
        }
        for (int i = 0; i < ended.size(); i++) {
            stopped.get(i).awaitEnded(ended.get(i));
        }
    }
}
