package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ShardedChannels;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * <p>Each lock's release channel is subscribed while a local waiter waits for that lock and
 * unsubscribed in the background once nobody has waited for it for {@link #LINGER}, so a lock contended
 * again and again does not pay a SUBSCRIBE and an UNSUBSCRIBE per wait. The connection also stays
 * subscribed to this instance's {@link #inbox()}, which keeps it open between waits.
 *
 * <p>A release message wakes one local waiter, as only one can win the lock ({@link Waiting#passOnWakeUp()});
 * {@value #WAKE_ALL} (a read-write lock's release, after which several readers may enter) wakes all of
 * the channel's. A release published while the connection is down is never delivered: when Redis
 * confirms a channel again (a reconnect, or a new connection that took over), every waiter of that
 * channel is woken to look at its lock, so none sleeps through a release until the holder's lease ends.
 *
 * <p>No caller waits inside a subscription: a join answers with a future that Redis's confirmation of
 * its channel completes, and opening, subscribing and unsubscribing only send (see {@link ChannelSubscriber}).
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
    private final ScheduledExecutorService unsubscriber = Executors.newSingleThreadScheduledExecutor(PubSubConnection.daemon("redis-lock-unsubscriber"));
    private final Listener listener = new Listener();
    /** The pub/sub connection, opening or open; null when there is none. */
    private volatile CompletableFuture<ChannelSubscriber.Subscription> connection;
    private volatile boolean closed;

    /** With a {@link ShardedChannels} of its own; a Locker shares one between its scripts and its subscriptions. */
    public ReleaseSubscriptions(RedisConnectionFactory connectionFactory, String anchorChannel) {
        this(ChannelSubscriber.of(connectionFactory, new ShardedChannels(connectionFactory)), anchorChannel);
    }

    /**
     * @param subscriber    classic or sharded, as the scripts publish (both read one {@link ShardedChannels})
     * @param anchorChannel the base of the {@link #inbox()} channel, under the lock key prefix so an ACL that allows the prefix's channels allows it
     */
    public ReleaseSubscriptions(ChannelSubscriber subscriber, String anchorChannel) {
        this.subscriber = subscriber;
        this.inbox = new HandOffInbox(anchorChannel);
    }

    /** Joins {@code channel} and waits until Redis confirmed it: for tests only, as it blocks its caller. */
    public Waiting join(String channel) {
        try {
            return join(channel, null, null).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : e;
        }
    }

    /**
     * Starts listening for releases on {@code channel}; completes once Redis confirmed the subscription,
     * so a release published after that is never missed. {@code onWake} runs on every wake-up and
     * hand-off meant for the waiter, on the client's event loop: it must only hand work on. A caller that
     * no longer wants the waiting must close it when the join completes.
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
        return entry.confirmation.handle((confirmed, failure) -> {
            if (failure != null) {
                onSubscriptionThread(() -> leave(entry, false)); // the event loop never takes a subscription monitor
                throw failure instanceof CompletionException wrapped ? wrapped : new CompletionException(failure);
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
        if (!later(work, 0)) {
            work.run();
        }
    }

    /** Runs {@code work} on the unsubscriber's thread after {@code delayNanos}; false when it is closed. */
    private boolean later(Runnable work, long delayNanos) {
        try {
            unsubscriber.schedule(work, delayNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException closedMeanwhile) {
            return false;
        }
    }

    /** Counts one more waiter of {@code channel}, subscribing it when it is not (or no longer) subscribed. */
    private ReleaseChannel enter(String channel) {
        while (true) {
            checkOpen();
            ReleaseChannel entry = channels.computeIfAbsent(channel, ReleaseChannel::new); // registered first: a new connection carries it
            synchronized (entry.subscriptionMonitor) {
                if (entry.dropped) {
                    Thread.onSpinWait(); // being unsubscribed: a fresh entry follows at once
                    continue;
                }
                entry.waiters++;
                CompletableFuture<Void> confirmation = entry.confirmation;
                if (confirmation == null || confirmation.isCompletedExceptionally() || !usable(connection)) {
                    subscribe(entry);
                }
                return entry;
            }
        }
    }

    /** Under the channel's subscription monitor, and never waits; the confirmation is set under the connection lock, see {@link #closeConnection()}. */
    private void subscribe(ReleaseChannel entry) {
        connectionLock.lock();
        try {
            checkOpen();
            CompletableFuture<ChannelSubscriber.Subscription> current = connection;
            if (usable(current)) {
                entry.confirmation = current.thenCompose(open -> open.subscribe(entry.name.getBytes(StandardCharsets.UTF_8)));
            } else {
                entry.confirmation = reopen().thenApply(open -> null); // it carries every registered channel, this one included
            }
        } finally {
            connectionLock.unlock();
        }
    }

    /** Under the connection lock: a new connection carrying the inbox and every registered channel, in place of the current one. */
    private CompletableFuture<ChannelSubscriber.Subscription> reopen() {
        closeConnection();
        List<byte[]> names = channels.keySet().stream().map(name -> name.getBytes(StandardCharsets.UTF_8)).toList();
        try {
            connection = subscriber.open(inbox.channel, names, listener);
        } catch (RuntimeException e) {
            connection = CompletableFuture.failedFuture(e);
        }
        return connection;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("Release subscriptions are closed: the application context is shutting down");
        }
    }

    /** Opening, or open and carrying its channels; not failed, not closed. */
    private static boolean usable(CompletableFuture<ChannelSubscriber.Subscription> connection) {
        return connection != null && (!connection.isDone() || !connection.isCompletedExceptionally() && connection.join().isOpen());
    }

    /** This instance's own channel, subscribed whenever anything is: releases publish the hand-offs to its queued waits here. */
    public String inbox() {
        return inbox.name;
    }

    /** Channels subscribed now, including those whose background unsubscribe is still pending. */
    public int subscribedChannelCount() {
        return channels.size();
    }

    /** Threads parked on {@code channel} now, for tests. */
    public int parkedOn(String channel) {
        ReleaseChannel entry = channels.get(channel);
        return entry == null ? 0 : (int) entry.queue.stream().filter(waiting -> waiting.parked).count();
    }

    /** Local waiters now, parked or asynchronous, over all locks; joins still waiting for their confirmation do not count. */
    public int waiterCount() {
        return channels.values().stream().mapToInt(channel -> channel.confirmedWaiters.get()).sum();
    }

    /** A waiter closed its wait: the channel may linger and go. */
    void left(Waiting waiting, ReleaseChannel entry) {
        if (waiting.waitName != null) {
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
                    entry.unsubscribeScheduled = later(() -> unsubscribeIfIdle(entry), LINGER.toNanos());
                }
            }
        }
    }

    /** Sends the unsubscribe before the channel leaves the map, so a join that subscribes it again comes after it on the connection. */
    private void unsubscribeIfIdle(ReleaseChannel entry) {
        synchronized (entry.subscriptionMonitor) {
            entry.unsubscribeScheduled = false;
            if (entry.waiters > 0 || entry.dropped || closed) {
                return;
            }
            long idleFor = System.nanoTime() - entry.idleSince;
            if (idleFor < LINGER.toNanos()) { // waited on again meanwhile: count the linger from the latest wait
                entry.unsubscribeScheduled = later(() -> unsubscribeIfIdle(entry), LINGER.toNanos() - idleFor);
                return;
            }
            entry.dropped = true;
            unsubscribe(entry.name);
            channels.remove(entry.name, entry);
        }
    }

    /** Sends, never waits. A failure is harmless: releases on a channel nobody waits for are ignored. */
    private void unsubscribe(String channel) {
        CompletableFuture<ChannelSubscriber.Subscription> current = connection;
        if (usable(current) && current.isDone()) {
            current.join().unsubscribe(channel.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Runs on the client's event loop: never takes a subscription monitor or the connection lock. */
    private final class Listener implements ChannelSubscriber.Listener {

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
            if (entry != null && Arrays.equals(body, WAKE_ALL_BODY)) {
                entry.queue.forEach(Waiting::wake);
            } else if (entry != null) {
                entry.wakeNext();
            }
        }

        /** A confirmation after a channel's first follows a reconnect: releases published meanwhile were never delivered. */
        @Override
        public void subscribed(byte[] channel) {
            if (inbox.is(channel)) {
                inbox.confirmed();
                return;
            }
            String name = new String(channel, StandardCharsets.UTF_8);
            ReleaseChannel entry = channels.get(name);
            if (entry != null && !entry.firstConfirmationPending.getAndSet(false)) {
                entry.queue.forEach(Waiting::wake);
            } else if (entry == null && !closed) {
                // An unsubscribe lost in an outage, which the reconnect undid; sent only while no join registers the channel.
                onSubscriptionThread(() -> channels.computeIfAbsent(name, unused -> {
                    unsubscribe(name);
                    return null;
                }));
            }
        }
    }

    /**
     * A new connection carrying every channel still registered, in place of one that broke and that its client
     * does not reconnect, or that {@link #disconnect()} closed while waits went on (a context stopped and started
     * again); tried again while that fails.
     */
    public void reconnect() {
        CompletableFuture<ChannelSubscriber.Subscription> reopened;
        connectionLock.lock();
        try {
            if (closed || channels.isEmpty()) {
                return; // nobody waits: the next wait opens a connection
            }
            reopened = usable(connection) ? connection : reopen(); // a join may have opened one meanwhile
        } finally {
            connectionLock.unlock();
        }
        reopened.whenComplete((open, failure) -> {
            if (failure != null && later(this::reconnect, RECONNECT_INTERVAL.toNanos())) {
                log.debug("Could not open the pub/sub connection again; trying again in " + RECONNECT_INTERVAL.toMillis() + " ms", failure);
            }
        });
    }

    /**
     * Under the connection lock; a connection still opening closes once it opened. A join still waiting
     * for a confirmation from it (a hung master, a context stopping) is let go at once rather than failed
     * or left waiting: its wait looks at its lock again, and the channel's confirmation on the next
     * connection wakes it, as it wakes every waiter after a reconnect.
     */
    private void closeConnection() {
        CompletableFuture<ChannelSubscriber.Subscription> current = connection;
        if (current != null) {
            connection = null;
            inbox.connectionClosed(); // first: a wait let go must not think it heard every hand-off
            for (ReleaseChannel entry : channels.values()) {
                CompletableFuture<Void> confirmation = entry.confirmation;
                if (confirmation != null && !confirmation.isDone()) {
                    entry.firstConfirmationPending.set(false);
                    confirmation.complete(null);
                }
            }
            current.thenAccept(ChannelSubscriber.Subscription::close);
        }
    }

    /**
     * Closes the pub/sub connection while its connection factory still runs (see {@code LockersLifecycle}); not
     * final: {@link #reconnect()} or the next join opens a new one.
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
        channels.clear();
        disconnect();
        unsubscriber.shutdownNow();
    }

    /** Whether the inbox has been subscribed without a break since {@code nanos}, see {@link Waiting#hearsEverythingSince}. */
    boolean inboxHeardSince(long nanos) {
        return inbox.heardSince(nanos);
    }
}
