package io.github.redislock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Wakes local waiters when a lock is released anywhere, over one shared pub/sub connection.
 *
 * <p>Each lock's release channel is subscribed while at least one local thread waits for that lock
 * (reference counted) and unsubscribed in the background once nobody has waited for it for
 * {@link #LINGER}: the hot path of a waiter that got its lock never pays for an unsubscribe, and a
 * lock contended again and again does not pay for a SUBSCRIBE and an UNSUBSCRIBE per wait. The
 * connection also stays subscribed to this instance's own channel, its {@link #inbox()}: it keeps the
 * connection open between waits (an empty subscription would close it) and receives the hand-offs of
 * locks to this instance's waiters.
 *
 * <p>A release published while the connection is down is never delivered. When the client reconnects
 * and Redis confirms a channel again, every waiter of that channel is woken to look at the lock
 * itself, so a waiter never sleeps through a release until the holder's lease would have run out.
 *
 * <p>A release message wakes one local waiter, not all of them: only one can win the lock. A waiter
 * that does not win goes back to waiting; a wake-up taken by a waiter that leaves, or used by one that
 * then waits for another lock instead ({@link Waiting#passOnWakeUp()}), is passed on to the next one.
 * The message {@value #WAKE_ALL} (a read-write lock's release, after which several readers
 * may enter) wakes every local waiter of the channel. A hand-off goes to the {@link HandOffInbox} of
 * the instance whose queued wait a release gave the lock to, and wakes only that wait: it costs Redis
 * one write and no other instance any work.
 *
 * <p>On a Redis Cluster that supports it the lock channels are sharded ({@link ShardedChannels}):
 * each is subscribed on its own slot's master only, see {@link ChannelSubscriber}.
 *
 * <p>A waiter is a parked thread, or an asynchronous wait that parks none: it is then told of its
 * wake-ups by a callback ({@link #join(String, String, Runnable)}) and takes them when it runs.
 *
 * <p>Each channel keeps its own subscription state: a join waits for its own channel's confirmation
 * only, outside any lock, and unsubscribing sends without waiting. So a master that hangs with a
 * subscription to confirm holds up the waiters of its own channels, never a join or a leave elsewhere.
 * Only (re)opening the connection itself, which subscribes every channel, is done by one thread at a time.
 */
final class ReleaseSubscriptions implements AutoCloseable {

    /** The release message that wakes every local waiter of its channel instead of one. */
    public static final String WAKE_ALL = "all";

    private static final Log log = LogFactory.getLog(ReleaseSubscriptions.class);
    private static final byte[] WAKE_ALL_BODY = WAKE_ALL.getBytes(StandardCharsets.UTF_8);

    /** How long a channel nobody waits on stays subscribed, in case the next wait for its lock comes soon. */
    static final Duration LINGER = Duration.ofMillis(500);

    private final ChannelSubscriber subscriber;
    private final HandOffInbox inbox;
    /** Held while the connection is opened or closed, never while one channel is subscribed on it. */
    private final ReentrantLock connectionLock = new ReentrantLock();
    private final Map<String, ReleaseChannel> channels = new ConcurrentHashMap<>();
    private final ScheduledExecutorService unsubscriber;
    private final Listener listener = new Listener();
    private volatile ChannelSubscriber.Subscription connection;
    private volatile boolean closed;

    /**
     * @param anchorChannel the base of this instance's {@link #inbox()} channel (a random suffix follows it),
     *                      under the lock key prefix so an ACL that
     *                      allows the prefix's channels allows it
     */
    public ReleaseSubscriptions(RedisConnectionFactory connectionFactory, String anchorChannel) {
        this(ChannelSubscriber.of(connectionFactory, new ShardedChannels(connectionFactory)), anchorChannel);
        // Asks the server on its own; a Locker shares one ShardedChannels between its scripts and its subscriptions.
    }

    /** @param subscriber classic or sharded, as the scripts publish (both read one {@link ShardedChannels}) */
    ReleaseSubscriptions(ChannelSubscriber subscriber, String anchorChannel) {
        this.subscriber = subscriber;
        this.inbox = new HandOffInbox(anchorChannel);
        this.unsubscriber = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "redis-lock-unsubscriber");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Starts listening for releases on {@code channel}; returns once Redis confirmed the subscription,
     * so a release published after this call is never missed.
     *
     * @throws org.springframework.dao.DataAccessException when Redis cannot be reached
     */
    public Waiting join(String channel) {
        return join(channel, null);
    }

    /**
     * Like {@link #join(String)}, for a waiter that a release may hand the lock to directly.
     *
     * @param waitName the name the wait queued under ({@code <wait id>:<owner>}); a hand-off to it wakes this waiter alone
     */
    public Waiting join(String channel, String waitName) {
        return join(channel, waitName, null);
    }

    /**
     * Like {@link #join(String, String)}, for a waiter that parks no thread: {@code onWake} runs on
     * every wake-up and hand-off meant for it (on the client's event loop, so it must only hand work
     * on, never block), and the waiter looks at {@link Waiting#takeWakeUps()} and
     * {@link Waiting#grantedToken()} when it runs.
     */
    public Waiting join(String channel, String waitName, Runnable onWake) {
        boolean interrupted = Thread.interrupted(); // the Redis client would refuse to run on an interrupted thread
        try {
            ReleaseChannel entry = enter(channel);
            try {
                awaitConfirmation(entry.confirmation());
            } catch (RuntimeException e) {
                leave(entry, false);
                throw e;
            }
            synchronized (entry.subscriptionMonitor) {
                entry.confirmedWaiters++;
            }
            Waiting waiting = new Waiting(this, entry, waitName, onWake);
            entry.queue.addLast(waiting);
            if (waitName != null) {
                inbox.register(waiting);
            }
            return waiting;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Counts one more waiter of {@code channel}, subscribing it when it is not (or no longer) subscribed. */
    private ReleaseChannel enter(String channel) {
        while (true) {
            if (closed) {
                throw new IllegalStateException("Release subscriptions are closed: the application context is shutting down");
            }
            ReleaseChannel entry = channels.computeIfAbsent(channel, ReleaseChannel::new); // registered first: its confirmation may arrive early
            synchronized (entry.subscriptionMonitor) {
                if (entry.dropped) {
                    Thread.onSpinWait(); // being unsubscribed: a fresh entry follows at once
                    continue;
                }
                entry.waiters++;
                ChannelSubscriber.Subscription current = connection;
                CompletableFuture<Void> confirmation = entry.confirmation();
                if (confirmation == null || confirmation.isCompletedExceptionally() || current == null || !current.isOpen()) {
                    entry.confirmation(subscribe(entry.name));
                }
                return entry;
            }
        }
    }

    /** Under the channel's subscription monitor; opening a connection subscribes every registered channel, this one included. */
    private CompletableFuture<Void> subscribe(String channel) {
        ChannelSubscriber.Subscription current = connection;
        if (current == null || !current.isOpen()) {
            try {
                if (openConnection()) {
                    return CompletableFuture.completedFuture(null);
                }
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            current = connection;
        }
        return current.subscribe(channel.getBytes(StandardCharsets.UTF_8));
    }

    /** @return whether this call opened a new connection (another thread may have done so meanwhile) */
    private boolean openConnection() {
        connectionLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("Release subscriptions are closed: the application context is shutting down");
            }
            if (connection != null && connection.isOpen()) {
                return false;
            }
            closeConnection();
            List<byte[]> names = new ArrayList<>();
            channels.keySet().forEach(registered -> names.add(registered.getBytes(StandardCharsets.UTF_8)));
            connection = subscriber.open(inbox.channel(), names, listener);
            return true;
        } finally {
            connectionLock.unlock();
        }
    }

    /** Waits, uninterruptibly and as long as the subscriber bounds it, for Redis to confirm a channel. */
    private static void awaitConfirmation(CompletableFuture<Void> confirmation) {
        try {
            confirmation.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : e;
        }
    }

    /**
     * This instance's own channel, subscribed whenever anything is: releases publish the hand-offs of
     * locks to this instance's queued waiters here.
     */
    public String inbox() {
        return inbox.name();
    }

    /** Channels subscribed now, including those whose background unsubscribe is still pending. */
    public int subscribedChannelCount() {
        return channels.size();
    }

    /** Threads parked on {@code channel} now, for tests. */
    int parkedOn(String channel) {
        ReleaseChannel entry = channels.get(channel);
        return entry == null ? 0 : (int) entry.queue.stream().filter(Waiting::hasParkedThread).count();
    }

    /** Local waiters now, parked threads and asynchronous waits alike, over all locks; joins still waiting for their channel's confirmation do not count. */
    public int waiterCount() {
        return channels.values().stream().mapToInt(channel -> channel.confirmedWaiters).sum();
    }

    /** A waiter closed its wait: the channel may linger and go. */
    void left(Waiting waiting, ReleaseChannel entry) {
        if (waiting.waitName() != null) {
            inbox.unregister(waiting);
        }
        leave(entry, true);
    }

    private void leave(ReleaseChannel entry, boolean confirmed) {
        synchronized (entry.subscriptionMonitor) {
            entry.waiters--;
            if (confirmed) {
                entry.confirmedWaiters--;
            }
            if (entry.waiters == 0 && !closed) {
                entry.idleSince = System.nanoTime();
                if (!entry.unsubscribeScheduled) {
                    entry.unsubscribeScheduled = scheduleUnsubscribe(entry, LINGER.toNanos());
                }
            }
        }
    }

    private boolean scheduleUnsubscribe(ReleaseChannel entry, long delayNanos) {
        try {
            unsubscriber.schedule(() -> unsubscribeIfIdle(entry), delayNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException closedMeanwhile) {
            return false;
        }
    }

    /**
     * Sends the unsubscribe before the channel leaves the map, so a join that subscribes it again comes
     * after it on the connection.
     */
    private void unsubscribeIfIdle(ReleaseChannel entry) {
        synchronized (entry.subscriptionMonitor) {
            entry.unsubscribeScheduled = false;
            if (entry.waiters > 0 || entry.dropped || closed) {
                return;
            }
            long idleFor = System.nanoTime() - entry.idleSince;
            if (idleFor < LINGER.toNanos()) { // waited on again meanwhile: count the linger from the latest wait
                entry.unsubscribeScheduled = scheduleUnsubscribe(entry, LINGER.toNanos() - idleFor);
                return;
            }
            entry.dropped = true;
            unsubscribe(entry.name);
            channels.remove(entry.name, entry);
        }
    }

    /** Atomic with any join of the channel: the unsubscribe is sent only while nobody registered it. */
    private void unsubscribeIfUnused(String channel) {
        channels.compute(channel, (name, entry) -> {
            if (entry == null) {
                unsubscribe(name);
            }
            return entry;
        });
    }

    /** Sends, never waits. A failure is harmless: releases on a channel nobody waits for are ignored. */
    private void unsubscribe(String channel) {
        ChannelSubscriber.Subscription current = connection;
        try {
            if (current != null && current.isOpen()) {
                current.unsubscribe(channel.getBytes(StandardCharsets.UTF_8));
            }
        } catch (RuntimeException e) {
            log.debug("Could not unsubscribe from " + channel + "; it stays subscribed until the connection closes", e);
        }
    }

    /** Runs on the client's event loop: never takes a subscription monitor or the connection lock (their holders may wait for this very thread). */
    private final class Listener implements ChannelSubscriber.Listener {

        @Override
        public void message(byte[] channel, byte[] body) {
            if (inbox.is(channel)) {
                inbox.received(new String(body, StandardCharsets.UTF_8));
                return;
            }
            ReleaseChannel entry = channels.get(new String(channel, StandardCharsets.UTF_8));
            if (entry == null) {
                return;
            }
            if (Arrays.equals(body, WAKE_ALL_BODY)) {
                entry.queue.forEach(Waiting::wake);
            } else {
                entry.wakeNext();
            }
        }

        /**
         * A channel that already has waiters is confirmed again only after the client reconnected (or a
         * fresh connection took over): releases published meanwhile were never delivered, so every
         * waiter of the channel looks at the lock again instead of sleeping until its holder's lease ends.
         */
        @Override
        public void subscribed(byte[] channel) {
            if (inbox.is(channel)) {
                inbox.confirmed();
                return;
            }
            ReleaseChannel entry = channels.get(new String(channel, StandardCharsets.UTF_8));
            if (entry == null) {
                String name = new String(channel, StandardCharsets.UTF_8);
                if (!closed) {
                    // An unsubscribe lost in an outage, which the reconnect subscribed again: nobody waits there.
                    unsubscriber.execute(() -> unsubscribeIfUnused(name));
                }
            } else {
                if (!entry.firstConfirmationPending.getAndSet(false)) {
                    entry.queue.forEach(Waiting::wake);
                }
            }
        }
    }

    /** Under the connection lock. */
    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (RuntimeException e) {
                log.debug("Closing the pub/sub connection failed", e);
            }
            connection = null;
            inbox.connectionClosed();
        }
    }

    /**
     * Closes the pub/sub connection now, while its connection factory still runs (see
     * {@code LockersLifecycle}); {@link #close()} would come too late, after the factory
     * stopped. Not final: the next {@link #join} opens a new connection carrying every channel that
     * still has waiters. Threads waiting meanwhile wake when the holder's lease runs out instead.
     */
    public void disconnect() {
        connectionLock.lock();
        try {
            closeConnection();
        } finally {
            connectionLock.unlock();
        }
    }

    @Override
    public void close() {
        closed = true;
        connectionLock.lock();
        try {
            channels.clear();
            closeConnection();
        } finally {
            connectionLock.unlock();
        }
        unsubscriber.shutdownNow();
    }

    /** Whether the inbox has been subscribed without a break since {@code nanos}, see {@link Waiting#hearsEverythingSince}. */
    boolean inboxHeardSince(long nanos) {
        return inbox.heardSince(nanos);
    }
}
