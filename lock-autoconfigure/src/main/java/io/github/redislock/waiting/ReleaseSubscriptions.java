package io.github.redislock.waiting;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
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
 * <p>A release message wakes one local waiter, not all of them: only one can win the lock. A waiter
 * that does not win goes back to waiting; a wake-up nobody takes stays banked for the next waiter.
 *
 * <p>A release published while the connection is down is never delivered. When the client reconnects
 * and Redis confirms a channel again, every waiter of that channel is woken to look at the lock
 * itself, so a waiter never sleeps through a release until the holder's lease would have run out.
 * When the connection has to be replaced (an unsubscribe failed during an outage), the new one is
 * subscribed to every channel that still has waiters, retried in the background while Redis is
 * unreachable.
 */
public final class ReleaseSubscriptions implements AutoCloseable {

    private static final Log log = LogFactory.getLog(ReleaseSubscriptions.class);
    private static final long FIRST_RECONNECT_DELAY_MILLIS = 100;
    private static final long MAX_RECONNECT_DELAY_MILLIS = 5000;

    private final RedisConnectionFactory connectionFactory;
    private final byte[] anchorChannel;
    /** Serializes SUBSCRIBE/UNSUBSCRIBE with the bookkeeping, so a channel's commands never overtake each other. */
    private final ReentrantLock commandLock = new ReentrantLock();
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** Runs the background unsubscribes and reconnects, one at a time. */
    private final ScheduledExecutorService background;
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
        this.background = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "redis-lock-subscriptions");
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
                try {
                    subscribe(channel);
                } catch (RuntimeException e) {
                    if (connection == null) {
                        reconnectForWaiters(FIRST_RECONNECT_DELAY_MILLIS);
                    }
                    throw e;
                }
                entry = new Channel(channel);
                channels.put(channel, entry);
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
        if (connection == null || !connection.isSubscribed()) {
            openConnection(channel);
        } else {
            connection.getSubscription().subscribe(channel.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** A fresh connection subscribed to the anchor, to every channel known here, and to {@code newChannel} if not null. Caller holds commandLock. */
    private void openConnection(String newChannel) {
        closeConnection();
        List<byte[]> names = new ArrayList<>();
        names.add(anchorChannel);
        channels.keySet().forEach(name -> names.add(name.getBytes(StandardCharsets.UTF_8)));
        if (newChannel != null && !channels.containsKey(newChannel)) {
            names.add(newChannel.getBytes(StandardCharsets.UTF_8));
        }
        RedisConnection fresh = connectionFactory.getConnection();
        try {
            fresh.subscribe(listener, names.toArray(byte[][]::new));
        } catch (RuntimeException e) {
            fresh.close();
            throw e;
        }
        connection = fresh;
    }

    /** Without a connection, waiters would hear no release at all: subscribe their channels again, retrying while Redis is unreachable. */
    private void reconnectForWaiters(long delayMillis) {
        if (closed) {
            return;
        }
        background.schedule(() -> {
            commandLock.lock();
            try {
                if (closed || connection != null || channels.isEmpty()) {
                    return;
                }
                openConnection(null);
                log.debug("Subscribed " + channels.size() + " release channel(s) again on a fresh connection");
            } catch (RuntimeException e) {
                log.debug("Cannot subscribe the release channels of waiting threads yet; retrying", e);
                reconnectForWaiters(Math.min(delayMillis * 2, MAX_RECONNECT_DELAY_MILLIS));
            } finally {
                commandLock.unlock();
            }
        }, delayMillis, TimeUnit.MILLISECONDS);
    }

    private void leave(Channel entry) {
        commandLock.lock();
        try {
            entry.waiters--;
            if (entry.waiters == 0 && !closed) {
                background.execute(() -> unsubscribeIfIdle(entry));
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
            log.debug("Could not unsubscribe from " + entry.name + "; replacing the connection", e);
            closeConnection();
            reconnectForWaiters(FIRST_RECONNECT_DELAY_MILLIS);
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
                entry.wakeUps.release();
            }
        }

        /** A channel that already has waiters is confirmed again only after a reconnect; releases may have been missed meanwhile. */
        @Override
        public void onChannelSubscribed(byte[] channel, long count) {
            Channel entry = channels.get(new String(channel, StandardCharsets.UTF_8));
            if (entry != null) {
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
        background.shutdownNow();
    }

    private static final class Channel {
        final String name;
        final Semaphore wakeUps = new Semaphore(0);
        /** Written under commandLock; read without it by the listener. */
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
