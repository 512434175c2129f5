package io.github.redislock.waiting;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;

/**
 * Wakes local waiters when a lock is released anywhere, over one shared pub/sub connection.
 *
 * <p>Each lock's release channel is subscribed while at least one local thread waits for that lock
 * (reference counted) and unsubscribed in the background once the last one leaves, so the hot path
 * of a waiter that got its lock never pays for an unsubscribe. The connection also stays subscribed
 * to an anchor channel, which keeps it open between waits (an empty subscription would close it).
 *
 * <p>A release published while the connection is down is never delivered. When the client reconnects
 * and Redis confirms a channel again, every waiter of that channel is woken to look at the lock
 * itself, so a waiter never sleeps through a release until the holder's lease would have run out.
 *
 * <p>A release message wakes one local waiter, not all of them: only one can win the lock. A waiter
 * that does not win goes back to waiting; a wake-up nobody takes stays banked for the next waiter.
 * The message {@value #WAKE_ALL} (a read-write lock's release, after which several readers may enter)
 * wakes every local waiter of the channel.
 */
public final class ReleaseSubscriptions implements AutoCloseable {

    /** The release message that wakes every local waiter of its channel instead of one. */
    public static final String WAKE_ALL = "all";

    private static final Log log = LogFactory.getLog(ReleaseSubscriptions.class);
    private static final byte[] WAKE_ALL_BODY = WAKE_ALL.getBytes(StandardCharsets.UTF_8);

    private final RedisConnectionFactory connectionFactory;
    private final byte[] anchorChannel;
    /** Serializes SUBSCRIBE/UNSUBSCRIBE with the bookkeeping, so a channel's commands never overtake each other. */
    private final ReentrantLock commandLock = new ReentrantLock();
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final ExecutorService unsubscriber;
    private final Listener listener = new Listener();
    private RedisConnection connection;
    private volatile boolean closed;

    /**
     * @param anchorChannel a channel nobody publishes to, under the lock key prefix so an ACL that
     *                      allows the prefix's channels allows it
     */
    public ReleaseSubscriptions(RedisConnectionFactory connectionFactory, String anchorChannel) {
        this.connectionFactory = connectionFactory;
        this.anchorChannel = anchorChannel.getBytes(StandardCharsets.UTF_8);
        this.unsubscriber = Executors.newSingleThreadExecutor(task -> {
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
        boolean interrupted = Thread.interrupted(); // the Redis client would refuse to run on an interrupted thread
        commandLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("Release subscriptions are closed: the application context is shutting down");
            }
            Channel entry = channels.get(channel);
            if (entry == null) {
                entry = new Channel(channel); // registered first: its confirmation may arrive before subscribe returns
                channels.put(channel, entry);
                try {
                    subscribe(channel);
                } catch (RuntimeException e) {
                    channels.remove(channel, entry);
                    throw e;
                }
            }
            entry.waiters++;
            return new Waiting(entry);
        } finally {
            commandLock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Channels subscribed now, including those whose background unsubscribe is still pending. */
    public int subscribedChannelCount() {
        return channels.size();
    }

    /** Threads parked on {@code channel} now, for tests. */
    int parkedOn(String channel) {
        Channel entry = channels.get(channel);
        return entry == null ? 0 : entry.wakeUps.getQueueLength();
    }

    /** Local threads waiting now, over all locks. */
    public int waiterCount() {
        commandLock.lock();
        try {
            return channels.values().stream().mapToInt(channel -> channel.waiters).sum();
        } finally {
            commandLock.unlock();
        }
    }

    private void subscribe(String channel) {
        byte[] name = channel.getBytes(StandardCharsets.UTF_8);
        if (connection != null && connection.isSubscribed()) {
            connection.getSubscription().subscribe(name);
            return;
        }
        // A new connection: it must also carry every channel that still has waiters.
        closeConnection();
        List<byte[]> names = new ArrayList<>();
        names.add(anchorChannel);
        channels.keySet().forEach(registered -> names.add(registered.getBytes(StandardCharsets.UTF_8))); // the new one included
        RedisConnection fresh = connectionFactory.getConnection();
        try {
            fresh.subscribe(listener, names.toArray(byte[][]::new));
        } catch (RuntimeException e) {
            fresh.close();
            throw e;
        }
        connection = fresh;
    }

    private void leave(Channel entry) {
        commandLock.lock();
        try {
            entry.waiters--;
            if (entry.waiters == 0 && !closed) {
                unsubscriber.execute(() -> unsubscribeIfIdle(entry));
            }
        } finally {
            commandLock.unlock();
        }
    }

    private void unsubscribeIfIdle(Channel entry) {
        commandLock.lock();
        try {
            if (entry.waiters > 0 || channels.get(entry.name) != entry) {
                return;
            }
            channels.remove(entry.name);
            if (connection != null && connection.isSubscribed()) {
                connection.getSubscription().unsubscribe(entry.name.getBytes(StandardCharsets.UTF_8));
            }
        } catch (RuntimeException e) {
            // Harmless: releases on a channel nobody waits for are ignored, and the next join subscribes again.
            log.debug("Could not unsubscribe from " + entry.name + "; it stays subscribed until the connection closes", e);
        } finally {
            commandLock.unlock();
        }
    }

    /** Runs on the client's event loop: never takes the command lock (a SUBSCRIBE holding it waits for this very thread). */
    private final class Listener implements MessageListener, SubscriptionListener {

        @Override
        public void onMessage(Message message, byte[] pattern) {
            Channel entry = channels.get(new String(message.getChannel(), StandardCharsets.UTF_8));
            if (entry != null) {
                entry.wakeUps.release(Arrays.equals(message.getBody(), WAKE_ALL_BODY) ? Math.max(1, entry.waiters) : 1);
            }
        }

        /**
         * A channel that already has waiters is confirmed again only after the client reconnected (or a
         * fresh connection took over): releases published meanwhile were never delivered, so every
         * waiter of the channel looks at the lock again instead of sleeping until its holder's lease ends.
         */
        @Override
        public void onChannelSubscribed(byte[] channel, long count) {
            Channel entry = channels.get(new String(channel, StandardCharsets.UTF_8));
            if (entry != null && entry.firstConfirmationPending.getAndSet(false) == false) {
                entry.wakeUps.release(Math.max(1, entry.waiters));
            }
        }
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (RuntimeException e) {
                log.debug("Closing the pub/sub connection failed", e);
            }
            connection = null;
        }
    }

    /**
     * Closes the pub/sub connection now, while its connection factory still runs (see
     * {@code ReleaseSubscriptionsLifecycle}); {@link #close()} would come too late, after the factory
     * stopped. Not final: the next {@link #join} opens a new connection carrying every channel that
     * still has waiters. Threads waiting meanwhile wake when the holder's lease runs out instead.
     */
    public void disconnect() {
        commandLock.lock();
        try {
            closeConnection();
        } finally {
            commandLock.unlock();
        }
    }

    @Override
    public void close() {
        commandLock.lock();
        try {
            closed = true;
            channels.clear();
            closeConnection();
        } finally {
            commandLock.unlock();
        }
        unsubscriber.shutdownNow();
    }

    private static final class Channel {
        final String name;
        /** The confirmation of the channel's own SUBSCRIBE wakes nobody; only a later one (a re-subscription) does. */
        final AtomicBoolean firstConfirmationPending = new AtomicBoolean(true);
        /** Fair: a release wakes the thread that has waited longest, not one that just arrived. */
        final Semaphore wakeUps = new Semaphore(0, true);
        /** Written under commandLock; read without it when a message arrives. */
        volatile int waiters;

        Channel(String name) {
            this.name = name;
        }
    }

    /** One thread's membership in a channel's waiters; close it when done waiting. */
    public final class Waiting implements AutoCloseable {

        private final Channel channel;
        private boolean left;

        private Waiting(Channel channel) {
            this.channel = channel;
        }

        /**
         * Waits until a release is announced or {@code nanos} pass.
         *
         * @return whether a release woke it
         */
        public boolean await(long nanos) throws InterruptedException {
            return channel.wakeUps.tryAcquire(nanos, TimeUnit.NANOSECONDS);
        }

        /** Like {@link #await}, but an interrupt neither ends the wait early nor gets lost: the flag is set again on return. */
        public boolean awaitUninterruptibly(long nanos) {
            boolean interrupted = false;
            long deadline = System.nanoTime() + nanos;
            try {
                while (true) {
                    try {
                        return channel.wakeUps.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void close() {
            if (!left) {
                left = true;
                leave(channel);
            }
        }
    }
}
