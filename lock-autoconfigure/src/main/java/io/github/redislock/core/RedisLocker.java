package io.github.redislock.core;

import io.github.redislock.HeldLock;
import io.github.redislock.LockObserver;
import io.github.redislock.Locker;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisMultiLock;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.core.bench.LockInternals;
import io.github.redislock.core.hold.CallerRuns;
import io.github.redislock.core.hold.HeldLocks;
import io.github.redislock.core.hold.Hold;
import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.core.script.ScriptTransport;
import io.github.redislock.core.wait.LockAttempt;
import io.github.redislock.core.wait.LockAttempts;
import io.github.redislock.core.wait.OwnerTurns;
import io.github.redislock.core.wait.ParkedWait;
import io.github.redislock.observation.FailSafeLockObserver;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** The {@link Locker} of one application instance: the facade over its parts, which it owns and closes ({@link LockerClose}). */
public class RedisLocker implements Locker, WatchdogState.Source, AutoCloseable {

    private final String keyPrefix;
    private final String clientId = UUID.randomUUID().toString();
    /** The calling thread's owner field, built once per thread: every lock and unlock needs it, some several times. */
    private final ThreadLocal<String> threadOwners = ThreadLocal.withInitial(() -> clientId + ":" + Thread.currentThread().getId());
    private final LockKeys[] recentKeys = new LockKeys[256];
    final LockCommands commands;
    final LockWatchdog watchdog;
    final ReleaseSubscriptions subscriptions;
    private final LockObserver observer;
    final HeldLocks holds;
    final LockAttempts attempts;
    final OwnerTurns turns = new OwnerTurns();
    final LockerClose lifecycle = new LockerClose(this);

    /** A Locker on {@code connectionFactory}, as the auto-configuration builds it; an application without Spring Boot builds its own. */
    public static RedisLockerBuilder builder(RedisConnectionFactory connectionFactory) {
        return new RedisLockerBuilder(connectionFactory);
    }

    static {
        LockInternals.install(RedisLocker::new); // the benchmarks' seam builds lockers from parts, see LockInternals
    }

    RedisLocker(LockCommands commands, LockWatchdog watchdog, ReleaseSubscriptions subscriptions,
                String keyPrefix, ApplicationEventPublisher events, LockObserver observer) {
        this.keyPrefix = checkedKeyPrefix(keyPrefix);
        this.commands = Objects.requireNonNull(commands, "commands");
        this.watchdog = Objects.requireNonNull(watchdog, "watchdog");
        this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
        this.observer = FailSafeLockObserver.of(Objects.requireNonNull(observer, "observer"));
        this.holds = new HeldLocks(this, this::currentOwner, commands, watchdog, this.observer, Objects.requireNonNull(events, "events"));
        this.attempts = new LockAttempts(commands, watchdog, holds, subscriptions.inbox(), turns, lifecycle::isClosed);
    }

    /** Checked by the builder and the Redlock locker before they start anything (a watchdog, a master's thread). */
    static String checkedKeyPrefix(String keyPrefix) {
        if (keyPrefix == null || keyPrefix.isBlank()) {
            throw new IllegalArgumentException("keyPrefix (redis-lock.key-prefix) must not be blank, but was " + (keyPrefix == null ? "null" : "'" + keyPrefix + "'"));
        }
        return keyPrefix;
    }

    /** This instance's id, the first part of every owner field it writes. */
    public String getClientId() {
        return clientId;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public String currentOwner() {
        return threadOwners.get();
    }

    @Override
    public void lock(String key, TimeUnit unit, int leaseTime) {
        takeUninterruptibly(LockKind.PLAIN, Collections.singletonList(key), WAIT_FOREVER, leaseTime, unit);
    }

    @Override
    public boolean tryLock(String key) {
        return takeUninterruptibly(LockKind.PLAIN, Collections.singletonList(key), 0, WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean tryLock(String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return take(LockKind.PLAIN, Collections.singletonList(key), waitTime, leaseTime, unit, true);
    }

    @Override
    public boolean tryLockAs(String ownerToken, String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        String owner = tokenOwner(ownerToken);
        return acquire(LockKind.PLAIN, keys(List.of(key)), owner, LockKeys.waitNanos(key, waitTime, unit), LockKeys.leaseMillis(key, leaseTime, unit), true);
    }

    /** A wait on the asynchronous release (see {@link CallerRuns}); a thread owner needs no turn. */
    @Override
    public void unlock(String key, Duration holdAtLeast) {
        Duration kept = HeldLocks.checkedHoldAtLeast(key, holdAtLeast);
        Hold hold = kept.isZero() ? null : firstHold(redisName(key), currentOwner(), LockKind.PLAIN, LockKind.WRITE, LockKind.READ);
        if (hold != null && hold.kind != LockKind.PLAIN) { // the other kinds' scripts keep nothing: refused with the hold as it was
            throw new IllegalStateException("Cannot keep " + hold.kind.describe(key) + " for holdAtLeast " + kept
                    + ": only a plain lock (getLock, tryLock) can be kept; nothing was released");
        }
        unlock(LockKind.PLAIN, List.of(key), kept);
    }

    @Override
    public void unlockAs(String ownerToken, String key, Duration holdAtLeast) {
        String owner = tokenOwner(ownerToken);
        Duration kept = HeldLocks.checkedHoldAtLeast(key, holdAtLeast);
        CallerRuns.await(onCaller -> unlock(key, owner, kept, onCaller));
    }

    @Override
    public boolean isLocked(String key) {
        return commands.exists(keys(key));
    }

    @Override
    public int getHoldCount(String key) {
        return holdCount(LockKind.PLAIN, key);
    }

    @Override
    public long fencingToken(String key) {
        return fencingToken(LockKind.PLAIN, key);
    }

    @Override
    public RedisLock getLock(String key) {
        return view(LockKind.PLAIN, key);
    }

    @Override
    public RedisLock getFairLock(String key) {
        return view(LockKind.FAIR, key);
    }

    @Override
    public RedisReadWriteLock getReadWriteLock(String key) {
        return new ReadWriteView(view(LockKind.READ, key), view(LockKind.WRITE, key), key);
    }

    private RedisLock view(LockKind kind, String key) {
        LockKeys.validate(key);
        return new LockView.Single(this, kind, key);
    }

    private record ReadWriteView(RedisLock readLock, RedisLock writeLock, String key) implements RedisReadWriteLock {

        @Override
        public String toString() {
            return "RedisReadWriteLock[" + key + "]";
        }
    }

    @Override
    public RedisMultiLock getMultiLock(String... keys) {
        if (keys == null || keys.length == 0) {
            throw new IllegalArgumentException("A multi-lock needs at least one key, but got " + (keys == null ? "null" : "none"));
        }
        Arrays.stream(keys).forEach(LockKeys::validate);
        Comparator<String> takingOrder = Comparator.comparingInt((String key) -> ClusterSlotHashUtil.calculateSlot(keyPrefix + key))
                .thenComparing(Comparator.naturalOrder());
        return new LockView.Multi(this, new LinkedHashSet<>(Arrays.asList(keys)).stream().sorted(takingOrder).toList());
    }

    /** A read-only view of the watchdog: nothing can watch, unwatch or renew a lock through it. */
    @Override
    public WatchdogState watchdogState() {
        return new WatchdogState() { // one line each: every answer is the watchdog's, or the locker's for its holds
            @Override public Duration timeout() { return watchdog.timeout(); }
            @Override public int watchedCount() { return watchdog.watchedCount(); }
            @Override public Instant lastRenewal() { return watchdog.lastRenewal(); }
            @Override public long lastRenewalSentNanos() { return watchdog.lastRenewalSentNanos(); }
            @Override public long stoppedRenewing() { return watchdog.stoppedRenewing(); }
            @Override public int consecutiveFailures() { return watchdog.consecutiveFailures(); }
            @Override public Instant failingSince() { return watchdog.failingSince(); }
            @Override public long failingSinceNanos() { return watchdog.failingSinceNanos(); }
            @Override public boolean lockerClosed() { return lifecycle.closing; }

            @Override
            public Supplier<OptionalLong> renewalsOfHeld(String key) {
                Hold hold = holds.get(keyPrefix + key, currentOwner(), LockKind.PLAIN);
                return hold == null ? OptionalLong::empty : () -> watchdog.renewalSentNanos(hold);
            }
        };
    }

    /** Threads of this instance waiting for a release message now, for diagnostics. */
    public int waiterCount() {
        return subscriptions.waiterCount();
    }

    public LockAdmin admin() {
        return new LockAdmin(commands, keyPrefix);
    }

    /** On a context's stop, before the factory's: lets holders release while Redis answers, closes the release-message connection; renewal pauses. */
    public void disconnectSubscriptions() {
        lifecycle.awaitReleases();
        subscriptions.disconnect();
        watchdog.contextStopped(true);
    }

    /** Reopens it when waits still listen (on a context restart): their wake-ups then come at once, not at their next look; renewal goes on. */
    public void reconnectSubscriptions() {
        watchdog.contextStopped(false);
        subscriptions.reconnect();
    }

    public int heldLockCount() {
        return holds.count();
    }

    /** What this instance holds now, for diagnostics such as the {@code locks} Actuator endpoint. */
    public List<HeldLock> heldLocks() {
        return holds.list();
    }

    @Override
    public void close() {
        lifecycle.close();
    }

    void stopRenewalAndSubscriptions() {
        holds.closeAll();
        subscriptions.close();
        watchdog.close();
        commands.transport().close();
    }

    /** Takes one kind of lock on its keys (FAIR, READ and WRITE take exactly one) for the calling thread. */
    boolean take(LockKind kind, List<String> keys, long waitTime, long leaseTime, TimeUnit unit, boolean interruptible) throws InterruptedException {
        String name = describe(keys);
        return acquire(kind, keys(keys), currentOwner(), LockKeys.waitNanos(name, waitTime, unit), LockKeys.leaseMillis(name, leaseTime, unit), interruptible);
    }

    boolean takeUninterruptibly(LockKind kind, List<String> keys, long waitTime, long leaseTime, TimeUnit unit) {
        try {
            return take(kind, keys, waitTime, leaseTime, unit, false);
        } catch (InterruptedException e) {
            throw new AssertionError("An uninterruptible wait cannot be interrupted", e);
        }
    }

    /** Releases the calling thread's hold of each key, a multi-lock's all or none (see {@link #held}). */
    void unlock(LockKind kind, List<String> keys, Duration holdAtLeast) {
        String owner = currentOwner();
        CallerRuns.await(onCaller -> release(kind, keys, owner, holdAtLeast, onCaller));
    }

    /**
     * Unlocks a shared owner's plain lock (a token, a handle) in its turn, after its acquisition in flight: the last release frees it whatever Redis
     * counts ({@code release.lua}). Without a live hold what is in flight is a first hold: no turn, the release fails at once (its callers take a throw so).
     */
    CompletableFuture<Void> unlock(String key, String owner, Duration holdAtLeast, Executor settleOn) {
        Supplier<CompletableFuture<Void>> release = () -> release(LockKind.PLAIN, List.of(key), owner, holdAtLeast, settleOn);
        Hold held = holds.get(redisName(key), owner, LockKind.PLAIN);
        if (held == null || held.lost) {
            return release.get();
        }
        OwnerTurns.Turn turn = turns.take(held.keys.name(), owner, true); // a handle is a shared owner
        // started: a release that throws (its locker closed meanwhile) still ends the turn
        CompletableFuture<Void> released = turn.ready().isDone() ? ScriptTransport.started(release) : turn.ready().thenComposeAsync(ready -> release.get(), settleOn);
        released.whenComplete((done, failure) -> turn.end());
        return released;
    }

    /** Every unlock ends here: one release of the owner's hold of each key, one script call per hash slot; its callers take a throw as a failed release. */
    private CompletableFuture<Void> release(LockKind kind, List<String> keys, String owner, Duration holdAtLeast, Executor settleOn) {
        List<Hold> held = held(kind, keys, owner, "unlock");
        return holds.releaseAsync(held, HeldLocks.keepMillis(held.get(0), holdAtLeast), settleOn);
    }

    /** The owner's hold of each key, or none: a key of a multi-lock not held fails it before anything is released. */
    private List<Hold> held(LockKind kind, List<String> keys, String owner, String action) {
        List<Hold> held = new ArrayList<>(keys.size());
        for (String key : keys) {
            String redisName = redisName(key);
            Hold hold = holds.get(redisName, owner, kind.holdSlot());
            if (hold == null) {
                Hold other = kind == LockKind.PLAIN && keys.size() == 1 ? firstHold(redisName, owner, LockKind.WRITE, LockKind.READ) : null;
                throw new IllegalMonitorStateException("Cannot " + action + " " + (keys.size() == 1 ? kind.describe(key)
                        : "multi-lock " + keys + ": its key '" + key + "'") + " (Redis key " + redisName + "): it is not held by owner "
                        + owner + " (calling thread " + Thread.currentThread().getName() + ")" + (keys.size() == 1 ? "" : "; nothing was released")
                        + (other == null ? "" : ", which holds " + other.kind.describe(key) + " instead: getReadWriteLock(key) unlocks that"));
            }
            held.add(hold);
        }
        return held;
    }

    /** The owner's hold of the key in the first of {@code slots} that has one, or null. */
    private Hold firstHold(String redisName, String owner, LockKind... slots) {
        return Stream.of(slots).map(slot -> holds.get(redisName, owner, slot)).filter(Objects::nonNull).findFirst().orElse(null);
    }

    int holdCount(LockKind kind, String key) {
        redisName(key); // a closing locker still counts holds, a closed one refuses
        String field = currentOwner() + (kind == LockKind.READ ? ":r" : kind == LockKind.WRITE ? ":w" : "");
        return commands.holdCount(LockKeys.of(keyPrefix, key), field);
    }

    long fencingToken(LockKind kind, String key) {
        Hold hold = held(kind, List.of(key), currentOwner(), "read the fencing token of").get(0);
        if (hold.lost) {
            throw holds.lostException(hold, "the watchdog found it gone");
        }
        return hold.getAsLong();
    }

    private boolean acquire(LockKind kind, List<LockKeys> keys, String owner, long waitNanos, long leaseMillis, boolean interruptible)
            throws InterruptedException {
        Observation observation = observe(kind, keys, true);
        boolean acquired;
        try {
            leaseMillis = holds.reentryLease(kind, keys, owner, leaseMillis);
            long redisLease = redisLease(leaseMillis);
            LockAttempt attempt = switch (kind) {
                case PLAIN -> plainAttempt(keys, owner, leaseMillis, redisLease);
                case FAIR -> attempts.queuing(kind, keys.get(0), owner, leaseMillis, redisLease, false, false);
                case READ, WRITE -> attempts.readWrite(kind, keys.get(0), owner, leaseMillis, redisLease);
            };
            acquired = new ParkedWait(lifecycle, attempt, () -> kind.describe(describe(keys.stream().map(LockKeys::key).toList())), waitNanos,
                    () -> CompletableFuture.completedFuture(CallerRuns.await(onCaller -> giveBack(kind, keys, owner, onCaller)))).await(interruptible);
        } catch (InterruptedException | RuntimeException | Error e) {
            observation.ended(false, e);
            throw e;
        }
        observation.ended(acquired, null);
        return acquired;
    }

    /** The attempt of a plain lock on the calling thread: on one Redis it queues; a Redlock's does not ({@link RedlockLocker}). */
    LockAttempt plainAttempt(List<LockKeys> keys, String owner, long leaseMillis, long redisLease) {
        return attempts.plain(keys, owner, leaseMillis, redisLease, !owner.equals(currentOwner()));
    }

    long redisLease(long leaseMillis) {
        return leaseMillis == WATCHDOG_LEASE ? watchdog.timeout().toMillis() : leaseMillis;
    }

    /** Starts observing an acquisition; without an observer the uncontended pair pays for no lock description. */
    Observation observe(LockKind kind, List<LockKeys> keys, boolean onThread) {
        LockObserver.Acquisition acquisition = LockObserver.Acquisition.NONE;
        if (observer != LockObserver.NONE) {
            LockObserver.ObservedLock lock = HeldLocks.observed(kind, keys);
            acquisition = onThread ? observer.acquisitionStarted(lock) : observer.acquisitionStartedWithoutThread(lock);
        }
        return new Observation(acquisition, kind, keys, System.nanoTime());
    }

    /** An acquisition begun at {@code startNanos}, as the observer (fail-safe: {@link FailSafeLockObserver}) and the debug log hear of it. */
    record Observation(LockObserver.Acquisition acquisition, LockKind kind, List<LockKeys> keys, long startNanos) {

        void ended(boolean held, Throwable failure) {
            if (failure != null) {
                acquisition.failed(failure);
                return;
            }
            if (held) {
                acquisition.acquired();
            } else {
                acquisition.timedOut();
            }
            if (HeldLocks.LOCKER_LOG.isDebugEnabled()) {
                HeldLocks.LOCKER_LOG.debug((held ? "Acquired " : "Gave up on ") + kind.describe(describe(keys.stream().map(LockKeys::name).toList()))
                        + " after waiting " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms");
            }
        }
    }

    CompletableFuture<Void> giveBack(LockKind kind, List<LockKeys> keys, String owner, Executor settleOn) {
        List<Hold> taken = keys.stream().map(lock -> holds.get(lock.name(), owner, kind.holdSlot())).filter(Objects::nonNull).toList();
        return holds.giveBack(taken, settleOn);
    }

    /** The attempt of a lock handle's plain lock ({@link RedisAsyncLocker}): the same queue place and hand-off as a parked wait's. */
    LockAttempt queuedPlainAttempt(LockKeys keys, String owner, long leaseMillis) {
        leaseMillis = holds.reentryLease(LockKind.PLAIN, List.of(keys), owner, leaseMillis);
        return attempts.queuing(LockKind.PLAIN, keys, owner, leaseMillis, redisLease(leaseMillis), true, true);
    }

    /** A token owner's field; the '~' keeps it apart from every thread owner's numeric id. */
    String tokenOwner(String ownerToken) {
        if (ownerToken == null || ownerToken.isBlank() || ownerToken.length() > 200) {
            throw new IllegalArgumentException("Owner token must be 1 to 200 non-blank characters, but was "
                    + (ownerToken == null ? "null" : "'" + ownerToken + "'"));
        }
        return clientId + ":~" + ownerToken;
    }

    /** The keys of {@code key} for a new acquisition, which a closing locker refuses; a lock taken lately reuses its four names (about 300 B). */
    LockKeys keys(String key) {
        if (lifecycle.closing) {
            throw HeldLocks.closedException(key);
        }
        int slot = (key == null ? 0 : key.hashCode()) & (recentKeys.length - 1);
        LockKeys known = recentKeys[slot]; // racy, but a record's fields are final: another thread's entry is whole, or not seen
        return known != null && known.key().equals(key) ? known : (recentKeys[slot] = LockKeys.of(keyPrefix, key));
    }

    /** The Redis key of {@code key} alone, for finding a hold (cheaper than all of its keys); a closing locker still finds holds. */
    private String redisName(String key) {
        if (lifecycle.closed) {
            throw HeldLocks.closedException(key);
        }
        LockKeys.validate(key);
        return keyPrefix + key;
    }

    /** A multi-lock's keys come in taking order already ({@link #getMultiLock}). */
    private List<LockKeys> keys(List<String> keys) {
        return keys.size() == 1 ? List.of(keys(keys.get(0))) : keys.stream().map(this::keys).toList();
    }

    private static String describe(List<String> keys) {
        return keys.size() == 1 ? keys.get(0) : keys.toString();
    }
}
