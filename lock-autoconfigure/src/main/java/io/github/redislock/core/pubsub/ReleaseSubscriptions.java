package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ScriptTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * Wakes local waiters when a lock is released anywhere, over one shared pub/sub connection that also
 * carries this instance's {@link #inbox()}. A lock's release channel stays subscribed for {@link #LINGER}
 * after its last local waiter left, so a lock contended again and again does not pay a SUBSCRIBE and
 * an UNSUBSCRIBE per wait.
 *
 * <p>A release message wakes one local waiter, as only one can win the lock ({@link Waiting#passOnWakeUp()});
 * {@value #WAKE_ALL} (a read-write lock's release, after which several readers may enter) wakes all.
 * A release published while no connection carries a channel is never delivered: so every confirmation
 * of a channel (a reconnect, a new connection that took over) wakes its waiters to look at their lock.
 */
public final class ReleaseSubscriptions implements ChannelSubscriber.Listener, AutoCloseable {

    private static final String WAKE_ALL = "all";
    private static final byte[] WAKE_ALL_BODY = WAKE_ALL.getBytes(StandardCharsets.UTF_8);
    private static final Log log = LogFactory.getLog(ReleaseSubscriptions.class);
    private static final CompletableFuture<Void> NOT_SUBSCRIBED = CompletableFuture.failedFuture(new IllegalStateException("Not subscribed"));

    /** How long a channel nobody waits on stays subscribed, in case the next wait for its lock comes soon. */
    static final Duration LINGER = Duration.ofMillis(500);
    /** How often a broken connection that its client does not reconnect is tried again. */
    static final Duration RECONNECT_INTERVAL = Duration.ofSeconds(1);

    private final ChannelSubscriber subscriber;
    final HandOffInbox inbox;
    /** Held while the connection is opened or closed, never while one channel is subscribed on it. */
    private final Object connectionLock = new Object();
    private final Map<String, ReleaseChannel> channels = new ConcurrentHashMap<>();
    private final ScheduledExecutorService unsubscriber = Executors.newSingleThreadScheduledExecutor(daemon("redis-lock-unsubscriber"));
    /** The pub/sub connection, opening or open; null when there is none. */
    private volatile CompletableFuture<ChannelSubscriber.Subscription> connection;
    private volatile boolean closed;

    /** @param anchorChannel the base of the {@link #inbox()} channel, under the lock key prefix so an ACL that allows the prefix's channels allows it */
    public ReleaseSubscriptions(ChannelSubscriber subscriber, String anchorChannel) {
        this.subscriber = subscriber;
        this.inbox = new HandOffInbox(anchorChannel);
    }

    /**
     * Completes once Redis confirmed {@code channel}, so a release published after that is never missed
     * (or once its connection closed under it: then the next connection's confirmation wakes it). A caller
     * that no longer wants the waiting closes it when the join completes.
     *
     * @param waitName the name the wait queued under ({@code <wait id>:<owner>}), whose hand-off wakes this waiter alone; null for none
     * @param onWake   runs on every wake-up and hand-off, on the client's event loop: it must only hand work on; null for none
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
        return entry.confirmation.handle((confirmed, failure) -> {
            if (failure != null) {
                onSubscriptionThread(() -> leave(entry)); // the event loop never takes a subscription monitor
                Throwable cause = failure instanceof CompletionException wrapped ? wrapped.getCause() : failure;
                String why = cause instanceof TimeoutException ? "Redis did not confirm it within the client's command timeout" : ScriptTransport.rootMessage(cause);
                throw new CompletionException(cause instanceof DataAccessException known ? known
                        : new DataAccessResourceFailureException("Pub/sub SUBSCRIBE of " + channel + " failed: " + why, cause));
            }
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
                if (entry.confirmation.isCompletedExceptionally() || !usable(connection)) {
                    synchronized (connectionLock) {
                        checkOpen();
                        if (usable(connection)) {
                            send(entry);
                        } else {
                            reopen(); // it carries every registered channel, this one included
                        }
                    }
                }
                return entry;
            }
        }
    }

    /** Under the connection lock: a new connection carrying the inbox and every registered channel, in place of the current one. */
    private CompletableFuture<ChannelSubscriber.Subscription> reopen() {
        closeConnection();
        try {
            connection = subscriber.open(inbox.name.getBytes(StandardCharsets.UTF_8), this);
        } catch (RuntimeException e) {
            connection = CompletableFuture.failedFuture(e);
        }
        channels.values().forEach(this::send);
        return connection;
    }

    /**
     * Under the connection lock, for {@link #closeConnection()}: a new confirmation before the subscribe goes
     * out (Redis may confirm at once), failed when sending fails or Redis takes longer than the client's timeout.
     */
    private void send(ReleaseChannel entry) {
        CompletableFuture<Void> confirmation = entry.confirmation = new CompletableFuture<>();
        byte[] name = entry.name.getBytes(StandardCharsets.UTF_8);
        connection.thenCompose(open -> open.subscribe(name).thenApply(sent -> open)).whenComplete((open, failure) -> {
            if (failure != null) {
                confirmation.completeExceptionally(failure);
            } else {
                confirmation.orTimeout(open.timeout().toNanos(), TimeUnit.NANOSECONDS);
            }
        });
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

    /** This instance's own channel: releases publish the hand-offs to its queued waits here. */
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
        return channels.values().stream().mapToInt(channel -> channel.queue.size()).sum();
    }

    /** One waiter fewer: the last one starts the channel's {@link #LINGER}. */
    void leave(ReleaseChannel entry) {
        synchronized (entry.subscriptionMonitor) {
            if (--entry.waiters == 0 && !closed) {
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

    // As the connection's listener, on the client's event loop: never takes a subscription monitor or the connection lock.

    @Override
    public void lost() {
        onSubscriptionThread(this::reconnect);
    }

    @Override
    public void message(byte[] channel, byte[] body) {
        ReleaseChannel entry = entry(name(channel));
        if (entry != null) {
            entry.message(body);
        }
    }

    /** Comes before the joins it confirms complete: whoever waits already may have missed a release. */
    @Override
    public void subscribed(byte[] channel) {
        String name = name(channel);
        ReleaseChannel entry = entry(name);
        if (entry != null) {
            entry.confirmed();
        } else if (!closed) {
            // An unsubscribe lost in an outage, which the reconnect undid; sent only while no join registers the channel.
            onSubscriptionThread(() -> channels.computeIfAbsent(name, unused -> {
                unsubscribe(name);
                return null;
            }));
        }
    }

    private ReleaseChannel entry(String name) {
        return inbox.name.equals(name) ? inbox : channels.get(name);
    }

    /** A new connection for the waits still registered, in place of a lost one or one {@link #disconnect()} closed; tried again while that fails. */
    public void reconnect() {
        CompletableFuture<ChannelSubscriber.Subscription> reopened;
        synchronized (connectionLock) {
            if (closed || channels.isEmpty()) {
                return; // nobody waits: the next wait opens a connection
            }
            reopened = usable(connection) ? connection : reopen(); // a join may have opened one meanwhile
        }
        reopened.whenComplete((open, failure) -> {
            if (failure != null && later(this::reconnect, RECONNECT_INTERVAL.toNanos())) {
                log.debug("Could not open the pub/sub connection again; trying again in " + RECONNECT_INTERVAL.toMillis() + " ms", failure);
            }
        });
    }

    /**
     * Under the connection lock; a connection still opening closes once it opened, on a thread of its own. A
     * join still waiting for its confirmation (a hung master, a context stopping) completes at once, neither
     * failed nor left waiting: its wait looks at its lock again, and the next connection's confirmation wakes it.
     */
    private void closeConnection() {
        CompletableFuture<ChannelSubscriber.Subscription> current = connection;
        if (current != null) {
            connection = null;
            inbox.connectionClosed(); // first: a wait let go must not think it heard every hand-off
            channels.values().forEach(ReleaseChannel::connectionClosed);
            if (current.isDone()) {
                current.thenAccept(ChannelSubscriber.Subscription::close);
            } else { // it opens on the client's event loop, which closing a Lettuce connection waits for: close elsewhere
                current.thenAcceptAsync(ChannelSubscriber.Subscription::close, task -> daemon("redis-lock-subscription-close").newThread(task).start());
            }
        }
    }

    /** Closes the pub/sub connection while its connection factory still runs (a context stop); not final: {@link #reconnect()} or the next join opens a new one. */
    public void disconnect() {
        synchronized (connectionLock) {
            closeConnection();
        }
    }

    @Override
    public void close() {
        closed = true;
        channels.clear();
        disconnect();
        unsubscriber.shutdownNow();
    }

    /** Threads of the subscriptions, which never keep the JVM alive. */
    static ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    static String name(byte[] channel) {
        return new String(channel, StandardCharsets.UTF_8);
    }

    /** A channel's local waiters and subscription; the subscription state has a monitor of its own, never taken on the client's event loop. */
    static class ReleaseChannel {
        final String name;
        /** Its joined waiters, the one that has waited longest first: a release wakes it. */
        final Deque<Waiting> queue = new ConcurrentLinkedDeque<>();
        final Object subscriptionMonitor = new Object();
        // Under the subscription monitor: the waiters counted (joins still unconfirmed too), when the last one
        // left, whether an unsubscribe check is pending, and whether it was unsubscribed and leaves the map.
        int waiters;
        long idleSince;
        boolean unsubscribeScheduled;
        boolean dropped;
        /** Completes once Redis confirmed the latest subscribe of the channel, or its connection closed; set under the connection lock. */
        volatile CompletableFuture<Void> confirmation = NOT_SUBSCRIBED;
        /** When Redis last confirmed it (System.nanoTime()); 0 = not subscribed now. */
        private volatile long confirmedAt;

        ReleaseChannel(String name) {
            this.name = name;
        }

        void message(byte[] body) {
            if (Arrays.equals(body, WAKE_ALL_BODY)) {
                wakeAll();
            } else {
                wakeNext();
            }
        }

        /** Messages published while no connection carried it never arrive: its waiters look at their locks again. */
        void confirmed() {
            confirmedAt = System.nanoTime();
            wakeAll();
            confirmation.complete(null);
        }

        void wakeAll() {
            queue.forEach(Waiting::wake);
        }

        void connectionClosed() {
            confirmedAt = 0;
            confirmation.complete(null);
        }

        /** Whether every message published since {@code nanos} (a System.nanoTime()) reaches this instance. */
        boolean heardSince(long nanos) {
            long confirmed = confirmedAt;
            return confirmed != 0 && confirmed - nanos < 0;
        }

        /** Wakes the waiter at the front, which then goes to the back: the others come first next time. */
        synchronized void wakeNext() {
            for (Waiting next = queue.pollFirst(); next != null; next = queue.pollFirst()) {
                if (!next.left) {
                    queue.addLast(next);
                    next.wake();
                    return;
                }
            }
        }

        synchronized void remove(Waiting waiting) {
            waiting.left = true;
            queue.remove(waiting);
            if (waiting.wakeUps.tryAcquire()) {
                wakeNext(); // it left without using this wake-up: the next waiter may need it
            }
        }
    }
}
