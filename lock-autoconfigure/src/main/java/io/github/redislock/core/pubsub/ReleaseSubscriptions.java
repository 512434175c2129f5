package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ShardedChannels;
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
 * <p>A waiter is a parked thread, or an asynchronous wait that parks none; either is told of its
 * wake-ups by a callback ({@link #join(String, String, Runnable)}) and takes them when it runs.
 *
 * <p>No caller waits inside a subscription: a join answers with a future that Redis's confirmation of
 * its own channel completes, opening the connection, subscribing and unsubscribing all send without
 * waiting (a client that can only subscribe synchronously, such as Jedis, does so on threads of the
 * {@link ClassicChannelSubscriber}). So a master that hangs with a subscription to confirm holds up
 * the waits for its own channels, never a thread, nor a join or a leave elsewhere.
 */
public final class ReleaseSubscriptions implements AutoCloseable {

    /** The release message that wakes every local waiter of its channel instead of one. */
    public static final String WAKE_ALL = "all";

    private static final Log log = LogFactory.getLog(ReleaseSubscriptions.class);
    private static final byte[] WAKE_ALL_BODY = WAKE_ALL.getBytes(StandardCharsets.UTF_8);

    /** How long a channel nobody waits on stays subscribed, in case the next wait for its lock comes soon. */
    static final Duration LINGER = Duration.ofMillis(500);
    /** How often a broken connection that its client does not reconnect is tried again. */
    static final Duration RECONNECT_INTERVAL = Duration.ofSeconds(1);

    private final ChannelSubscriber subscriber;
    private final HandOffInbox inbox;
    /** Held while the connection is opened or closed, never while one channel is subscribed on it. */
    private final ReentrantLock connectionLock = new ReentrantLock();
    private final Map<String, ReleaseChannel> channels = new ConcurrentHashMap<>();
    private final ScheduledExecutorService unsubscriber;
    private final Listener listener = new Listener();
    private volatile Connection connection;
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
    public ReleaseSubscriptions(ChannelSubscriber subscriber, String anchorChannel) {
        this.subscriber = subscriber;
        this.inbox = new HandOffInbox(anchorChannel);
        this.unsubscriber = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "redis-lock-unsubscriber");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Starts listening for releases on {@code channel} and waits until Redis confirmed it; for tests
     * and diagnostics only, as it blocks its caller. Waits use {@link #join(String, String, Runnable)}.
     *
     * @throws org.springframework.dao.DataAccessException when Redis cannot be reached
     */
    public Waiting join(String channel) {
        try {
            return join(channel, null, null).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : e;
        }
    }

    /**
     * Starts listening for releases on {@code channel}; completes once Redis confirmed the subscription,
     * so a release published after that is never missed, and fails when it cannot be confirmed within
     * the client's command timeout. Returns at once: no caller ever waits inside a subscription, so a
     * master that hangs holds up only the waits for its own locks.
     *
     * <p>{@code onWake} runs on every wake-up and hand-off meant for the waiter (on the client's event
     * loop, so it must only hand work on, never block); the waiter looks at {@link Waiting#takeWakeUps()}
     * and {@link Waiting#grantedToken()} when it runs. A caller that no longer wants the waiting must
     * close it when the join completes.
     *
     * @param waitName the name the wait queued under ({@code <wait id>:<owner>}), whose hand-off wakes this waiter alone; null for none
     * @param onWake   null for none
     */
    public CompletableFuture<Waiting> join(String channel, String waitName, Runnable onWake) {
        boolean interrupted = Thread.interrupted(); // the Redis client would refuse to run on an interrupted thread
        ReleaseChannel entry;
        try {
            entry = enter(channel);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        // Completes on the client's event loop, or at once when the channel is subscribed already.
        return entry.confirmation().handle((confirmed, failure) -> {
            if (failure != null) {
                onSubscriptionThread(() -> leave(entry, false)); // the event loop never takes a subscription monitor
                throw failure instanceof CompletionException wrapped && wrapped.getCause() instanceof RuntimeException cause ? cause
                        : failure instanceof RuntimeException runtime ? runtime : new CompletionException(failure);
            }
            entry.confirmedWaiters.incrementAndGet();
            Waiting waiting = new Waiting(this, entry, waitName, onWake);
            entry.queue.addLast(waiting);
            if (waitName != null) {
                inbox.register(waiting);
            }
            return waiting;
        });
    }

    private void onSubscriptionThread(Runnable work) {
        try {
            unsubscriber.execute(work);
        } catch (RejectedExecutionException closedMeanwhile) {
            work.run();
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
                Connection current = connection;
                CompletableFuture<Void> confirmation = entry.confirmation();
                if (confirmation == null || confirmation.isCompletedExceptionally() || current == null || !current.usable()) {
                    entry.confirmation(subscribe(entry.name));
                }
                return entry;
            }
        }
    }

    /** Under the channel's subscription monitor, and never waits: a new connection subscribes every registered channel, this one included. */
    private CompletableFuture<Void> subscribe(String channel) {
        Connection current;
        try {
            current = openConnection();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (current.carriesEveryChannel) {
            return current.subscription.thenApply(open -> null);
        }
        return current.subscription.thenCompose(open -> open.subscribe(channel.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * The connection open or opening now, or a new one carrying every registered channel (then
     * {@link Connection#carriesEveryChannel}); never waits for it to open.
     */
    private Connection openConnection() {
        connectionLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("Release subscriptions are closed: the application context is shutting down");
            }
            Connection current = connection;
            if (current != null && current.usable()) {
                return new Connection(current.subscription, false);
            }
            closeConnection();
            List<byte[]> names = new ArrayList<>();
            channels.keySet().forEach(registered -> names.add(registered.getBytes(StandardCharsets.UTF_8)));
            CompletableFuture<ChannelSubscriber.Subscription> opening;
            try {
                opening = subscriber.open(inbox.channel(), names, listener);
            } catch (RuntimeException e) {
                opening = CompletableFuture.failedFuture(e);
            }
            connection = new Connection(opening, false);
            return new Connection(opening, true);
        } finally {
            connectionLock.unlock();
        }
    }

    /**
     * The pub/sub connection, opening or open.
     *
     * @param carriesEveryChannel whether it was opened just now with every channel then registered
     */
    private record Connection(CompletableFuture<ChannelSubscriber.Subscription> subscription, boolean carriesEveryChannel) {

        /** Opening, or open and carrying its channels; not failed, not closed. */
        boolean usable() {
            if (!subscription.isDone()) {
                return true;
            }
            return !subscription.isCompletedExceptionally() && subscription.join().isOpen();
        }

        /** The open subscription, or null while it opens or when it failed. */
        ChannelSubscriber.Subscription openNow() {
            return subscription.isDone() && !subscription.isCompletedExceptionally() ? subscription.join() : null;
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
    public int parkedOn(String channel) {
        ReleaseChannel entry = channels.get(channel);
        return entry == null ? 0 : (int) entry.queue.stream().filter(Waiting::hasParkedThread).count();
    }

    /** Local waiters now, parked threads and asynchronous waits alike, over all locks; joins still waiting for their channel's confirmation do not count. */
    public int waiterCount() {
        return channels.values().stream().mapToInt(channel -> channel.confirmedWaiters.get()).sum();
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
                entry.confirmedWaiters.decrementAndGet();
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
        Connection open = connection;
        ChannelSubscriber.Subscription current = open == null ? null : open.openNow();
        try {
            if (current != null && current.isOpen()) {
                current.unsubscribe(channel.getBytes(StandardCharsets.UTF_8));
            }
        } catch (RuntimeException e) {
            log.debug("Could not unsubscribe from " + channel + "; it stays subscribed until the connection closes", e);
        }
    }

    /** Runs on the client's event loop: never takes a subscription monitor or the connection lock. */
    private final class Listener implements ChannelSubscriber.Listener {

        /** A connection its client does not reconnect (Jedis) broke: a new one takes over, see {@link #reconnect()}. */
        @Override
        public void lost() {
            onSubscriptionThread(ReleaseSubscriptions.this::reconnect);
        }

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

    /**
     * Opens a new connection carrying every channel still registered, in place of one that broke and
     * that its client does not reconnect, or that {@link #disconnect()} closed while waits went on (a
     * context stopped and started again); tried again every {@link #RECONNECT_INTERVAL} while that
     * fails and a channel is still registered. Its confirmations wake every waiter of those channels and
     * every wait the inbox knows, which then look at their locks, as after a client's own reconnect.
     */
    public void reconnect() {
        if (closed || channels.isEmpty()) {
            return; // nobody waits: the next wait opens a connection
        }
        Connection reopened;
        try {
            reopened = openConnection();
        } catch (RuntimeException closedMeanwhile) {
            return;
        }
        reopened.subscription.whenComplete((open, failure) -> {
            if (failure != null && !closed) {
                log.debug("Could not open the pub/sub connection again; trying again in " + RECONNECT_INTERVAL.toMillis() + " ms", failure);
                try {
                    unsubscriber.schedule(this::reconnect, RECONNECT_INTERVAL.toNanos(), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closedMeanwhile) {
                    // closed: nothing to reconnect
                }
            }
        });
    }

    /** Under the connection lock; a connection still opening closes once it opened. */
    private void closeConnection() {
        Connection current = connection;
        if (current != null) {
            connection = null;
            current.subscription.thenAccept(open -> {
                try {
                    open.close();
                } catch (RuntimeException e) {
                    log.debug("Closing the pub/sub connection failed", e);
                }
            });
            inbox.connectionClosed();
        }
    }

    /**
     * Closes the pub/sub connection now, while its connection factory still runs (see
     * {@code LockersLifecycle}); {@link #close()} would come too late, after the factory
     * stopped. Not final: {@link #reconnect()} or the next {@link #join} opens a new connection carrying
     * every channel that still has waiters.
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
