package io.github.redislock.core.pubsub;

import io.github.redislock.core.renewal.DaemonThreads;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.ScriptTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Wakes local waiters when a lock is released anywhere, over one pub/sub connection that also carries the {@link #inbox()}.
 * A release wakes one local waiter, as only one can win; {@code all} (a read-write release) wakes all. A release
 * published while no connection carries a channel is lost: so every confirmation of a channel wakes all its waiters.
 */
public final class ReleaseSubscriptions implements AutoCloseable {

    private static final byte[] WAKE_ALL = "all".getBytes(StandardCharsets.UTF_8);
    private static final Log log = LogFactory.getLog(ReleaseSubscriptions.class);
    private static final CompletableFuture<Void> NOT_SUBSCRIBED = CompletableFuture.failedFuture(new IllegalStateException("Not subscribed"));

    /** How long a channel nobody waits on stays subscribed: a lock contended again and again pays no SUBSCRIBE per wait. */
    static final Duration LINGER = Duration.ofMillis(500);
    static final Duration RECONNECT_INTERVAL = Duration.ofSeconds(1);

    private final ChannelSubscriber subscriber;
    final HandOffInbox inbox;
    /** Held while the connection is opened or closed, never while one channel is subscribed on it. */
    private final Object connectionLock = new Object();
    private final Map<String, ReleaseChannel> channels = new ConcurrentHashMap<>();
    private final ScheduledExecutorService unsubscriber = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("redis-lock-unsubscriber"));
    private volatile CompletableFuture<ChannelSubscriber.Subscription> connection;

    /** @param anchorChannel the base of the {@link #inbox()} channel, under the lock key prefix so an ACL that allows the prefix's channels allows it */
    public ReleaseSubscriptions(ChannelSubscriber subscriber, String anchorChannel) {
        this.subscriber = subscriber;
        this.inbox = new HandOffInbox(anchorChannel);
    }

    /**
     * Completes once Redis confirmed {@code channel} (or its connection closed: the next one's confirmation wakes it).
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
                later(() -> leave(entry), 0); // the event loop never takes a subscription monitor
                throw new CompletionException(ScriptTransport.unwrap(failure));
            }
            Waiting waiting = new Waiting(this, entry, waitName, onWake);
            entry.queue.addLast(waiting);
            if (waitName != null) {
                inbox.register(waiting);
            }
            return waiting;
        });
    }

    private boolean later(Runnable work, long delayNanos) {
        try {
            unsubscriber.schedule(work, delayNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException closedMeanwhile) {
            return false;
        }
    }

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

    /** Under the connection lock: a new connection carrying the inbox and every registered channel. */
    private CompletableFuture<ChannelSubscriber.Subscription> reopen() {
        disconnect();
        connection = ScriptTransport.started(() -> subscriber.open(inbox.name.getBytes(StandardCharsets.UTF_8), this));
        channels.values().forEach(this::send);
        return connection;
    }

    /** Under the connection lock: a new confirmation before the subscribe goes out, as Redis may confirm at once. */
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
        if (unsubscriber.isShutdown()) {
            throw new IllegalStateException("Release subscriptions are closed: the application context is shutting down");
        }
    }

    private static boolean usable(CompletableFuture<ChannelSubscriber.Subscription> connection) {
        return connection != null && (!connection.isDone() || !connection.isCompletedExceptionally() && connection.join().isOpen());
    }

    public String inbox() {
        return inbox.name;
    }

    public int subscribedChannelCount() {
        return channels.size();
    }

    public int parkedOn(String channel) {
        ReleaseChannel entry = channels.get(channel);
        return entry == null ? 0 : (int) entry.queue.stream().filter(waiting -> waiting.parked).count();
    }

    /** Local waiters now, parked or asynchronous; unconfirmed joins do not count. */
    public int waiterCount() {
        return channels.values().stream().mapToInt(channel -> channel.queue.size()).sum();
    }

    void leave(ReleaseChannel entry) {
        synchronized (entry.subscriptionMonitor) {
            if (--entry.waiters == 0) {
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
            if (entry.waiters > 0) {
                return;
            }
            long idleFor = System.nanoTime() - entry.idleSince;
            if (idleFor < LINGER.toNanos()) { // waited on again meanwhile
                entry.unsubscribeScheduled = later(() -> unsubscribeIfIdle(entry), LINGER.toNanos() - idleFor);
                return;
            }
            entry.dropped = true;
            unsubscribe(entry.name);
            channels.remove(entry.name, entry);
        }
    }

    /** A failure is harmless: releases on a channel nobody waits for are ignored. */
    private void unsubscribe(String channel) {
        CompletableFuture<ChannelSubscriber.Subscription> current = connection;
        if (usable(current) && current.isDone()) {
            current.join().unsubscribe(channel.getBytes(StandardCharsets.UTF_8));
        }
    }

    // Called by the subscriptions on the client's event loop: never takes a subscription monitor or the connection lock.

    /** The connection broke and its client does not reconnect it (Jedis); not after its {@code close()}. */
    void lost() {
        later(this::reconnect, 0);
    }

    /** A hand-off on a sharded lock channel ({@code <n>|<inbox>granted:...}, see release.lua) goes to the inbox it names, if ours. */
    void message(byte[] channel, byte[] body) {
        ReleaseChannel entry = entry(name(channel));
        byte[] ours = entry != inbox && body.length > 0 && Character.isDigit(body[0]) ? LockCommands.inboxField(inbox.name).getBytes(StandardCharsets.UTF_8) : null;
        if (ours != null && Arrays.equals(body, 0, Math.min(body.length, ours.length), ours, 0, ours.length)) {
            inbox.message(Arrays.copyOfRange(body, ours.length, body.length));
        } else if (ours == null && entry != null) {
            entry.message(body);
        }
    }

    /** After each (s)subscribe and reconnect; comes before the joins it confirms complete: whoever waits already may have missed a release. */
    void subscribed(byte[] channel, boolean sharded) {
        String name = name(channel);
        ReleaseChannel entry = entry(name);
        if (entry != null) {
            entry.sharded = sharded;
            entry.confirmedAt = System.nanoTime();
            entry.wakeAll();
            entry.confirmation.complete(null);
        } else {
            // An unsubscribe lost in an outage, which the reconnect undid; sent only while no join registers the channel.
            later(() -> channels.computeIfAbsent(name, unused -> {
                unsubscribe(name);
                return null;
            }), 0);
        }
    }

    private ReleaseChannel entry(String name) {
        return inbox.name.equals(name) ? inbox : channels.get(name);
    }

    /** A new connection for the waits still registered, in place of a lost or {@link #disconnect()}ed one; retried while that fails. */
    public void reconnect() {
        CompletableFuture<ChannelSubscriber.Subscription> reopened;
        synchronized (connectionLock) {
            if (unsubscriber.isShutdown() || channels.isEmpty()) {
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

    /** Closes the connection while its factory runs (a context stop): a join waiting for its confirmation completes, not failed, and looks again. */
    public void disconnect() {
        synchronized (connectionLock) {
            CompletableFuture<ChannelSubscriber.Subscription> current = connection;
            if (current != null) {
                connection = null;
                inbox.connectionClosed(); // first: a wait let go must not think it heard every hand-off
                channels.values().forEach(ReleaseChannel::connectionClosed);
                if (current.isDone()) {
                    current.thenAccept(ChannelSubscriber.Subscription::close);
                } else { // it opens on the client's event loop, which closing a Lettuce connection waits for: close elsewhere
                    current.thenAcceptAsync(ChannelSubscriber.Subscription::close,
                            task -> DaemonThreads.named("redis-lock-subscription-close").newThread(task).start());
                }
            }
        }
    }

    @Override
    public void close() {
        unsubscriber.shutdownNow(); // first: it is what says closed
        channels.clear();
        disconnect();
    }

    static String name(byte[] channel) {
        return new String(channel, StandardCharsets.UTF_8);
    }

    /** A channel's local waiters, longest waiting first, and subscription, whose monitor is never taken on the client's event loop. */
    static class ReleaseChannel {
        final String name;
        final Deque<Waiting> queue = new ConcurrentLinkedDeque<>();
        final Object subscriptionMonitor = new Object();
        // Under the subscription monitor: waiters counted (unconfirmed joins too), when the last left, a pending check, unsubscribed.
        int waiters;
        long idleSince;
        boolean unsubscribeScheduled;
        boolean dropped;
        /** Of the latest subscribe, or its connection closed; set under the connection lock. */
        volatile CompletableFuture<Void> confirmation = NOT_SUBSCRIBED;
        /** When Redis last confirmed it (System.nanoTime()); 0 = not subscribed. */
        volatile long confirmedAt;
        volatile boolean sharded; // confirmed by SSUBSCRIBE: hand-offs to this instance's waits for the lock come here

        ReleaseChannel(String name) {
            this.name = name;
        }

        void message(byte[] body) {
            if (Arrays.equals(body, WAKE_ALL)) {
                wakeAll();
            } else {
                wakeNext();
            }
        }

        void wakeAll() {
            queue.forEach(Waiting::wake);
        }

        void connectionClosed() {
            confirmedAt = 0;
            confirmation.complete(null);
        }

        /** The waiter woken goes to the back: the others come first next time. */
        synchronized void wakeNext() {
            for (Waiting next = queue.pollFirst(); next != null; next = queue.pollFirst()) {
                if (!next.left) {
                    queue.addLast(next);
                    next.wake();
                    return;
                }
            }
        }
    }

    /**
     * This instance's own channel, where {@code release.lua} hands a lock to a queued wait ({@code granted:<token>:<wait name>}).
     * A wait queues in Redis before it joins here, so its hand-off may come first: the last {@value #MAX_UNCLAIMED_HAND_OFFS} are kept.
     */
    static final class HandOffInbox extends ReleaseChannel {

        private static final String GRANTED = "granted:";
        private static final int MAX_UNCLAIMED_HAND_OFFS = 64; // one is kept for a few microseconds

        /** By wait name, not in the channel's queue, where leaving costs a scan. Guarded by itself. */
        private final Map<String, Waiting> waits = new HashMap<>();
        /** Hand-offs to waits that had not joined yet. Guarded by {@link #waits}. */
        private final Map<String, Long> unclaimed = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > MAX_UNCLAIMED_HAND_OFFS;
            }
        };

        HandOffInbox(String anchorChannel) {
            super(anchorChannel + ":" + UUID.randomUUID());
        }

        void register(Waiting waiting) {
            synchronized (waits) {
                waits.put(waiting.waitName, waiting);
                Long token = unclaimed.remove(waiting.waitName);
                if (token != null) {
                    waiting.grant(token);
                }
            }
        }

        void unregister(Waiting waiting) {
            synchronized (waits) {
                waits.remove(waiting.waitName, waiting);
            }
        }

        @Override
        void wakeAll() {
            synchronized (waits) {
                waits.values().forEach(Waiting::wake);
            }
        }

        @Override
        void message(byte[] body) {
            String text = new String(body, StandardCharsets.UTF_8);
            if (!text.startsWith(GRANTED)) {
                log.debug("Ignored a message on this instance's inbox that is not a hand-off: " + text);
                return;
            }
            int waitStart = text.indexOf(':', GRANTED.length());
            long token = Long.parseLong(text, GRANTED.length(), waitStart, 10);
            String waitName = text.substring(waitStart + 1);
            synchronized (waits) {
                Waiting waiting = waits.get(waitName);
                if (waiting != null) {
                    waiting.grant(token);
                } else {
                    unclaimed.put(waitName, token);
                }
            }
        }
    }
}
