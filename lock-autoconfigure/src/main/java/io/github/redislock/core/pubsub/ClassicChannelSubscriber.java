package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ScriptTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * {@code SUBSCRIBE} on a connection of the factory, whatever its client: standalone, Sentinel, and
 * clusters without sharded pub/sub, over Lettuce or Jedis.
 *
 * <p>Spring Data Redis subscribes synchronously, and on Jedis its subscribe does not return at all: the
 * calling thread runs the subscription's read loop until the last channel is unsubscribed. So no caller
 * ever runs it. Each connection has a thread of its own that opens it and subscribes (on Jedis it then
 * reads the messages for as long as the connection lives), and one more that sends every later
 * subscribe and unsubscribe, in order; a confirmation from Redis completes the future its caller got.
 * A subscription that Redis does not confirm within the client's command timeout (a new connection:
 * 10 s more) fails its future.
 * Lettuce reconnects a subscription by itself; a Jedis one that breaks is reported
 * ({@link Listener#lost()}) so that a new connection takes over its channels.
 */
final class ClassicChannelSubscriber implements ChannelSubscriber {

    private static final Log log = LogFactory.getLog(ClassicChannelSubscriber.class);
    /** What opening a connection may take beyond the command timeout: Lettuce's default connect timeout. */
    private static final Duration CONNECTING = Duration.ofSeconds(10);
    /** Lettuce's own default command timeout, for a factory that names none. */
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis", ClassicChannelSubscriber.class.getClassLoader());

    private final RedisConnectionFactory connectionFactory;
    private final Duration confirmationTimeout;

    ClassicChannelSubscriber(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
        this.confirmationTimeout = commandTimeout(connectionFactory);
    }

    /** The client's command (Lettuce) or read (Jedis) timeout: how long a subscription may wait for Redis to confirm it. */
    static Duration commandTimeout(RedisConnectionFactory connectionFactory) {
        if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
            return lettuce.getClientConfiguration().getCommandTimeout();
        }
        if (JEDIS_PRESENT && connectionFactory instanceof JedisConnectionFactory jedis) {
            return jedis.getClientConfiguration().getReadTimeout();
        }
        return DEFAULT_TIMEOUT;
    }

    @Override
    public CompletableFuture<Subscription> open(byte[] inbox, List<byte[]> channels, Listener listener) {
        List<byte[]> names = new ArrayList<>();
        names.add(inbox);
        names.addAll(channels);
        return new ClassicSubscription(listener).open(names);
    }

    private final class ClassicSubscription implements Subscription, MessageListener, SubscriptionListener {

        private final Listener listener;
        /** Confirmations not yet received, by channel name. */
        private final Map<String, CompletableFuture<Void>> unconfirmed = new ConcurrentHashMap<>();
        /** Sends subscribes and unsubscribes one after the other; the only thread that writes to an open subscription. */
        private final ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "redis-lock-subscriber");
            thread.setDaemon(true);
            return thread;
        });
        private volatile RedisConnection connection;
        /** The read loop or the connection ended: what it carried is gone, the next wait opens a new one. */
        private volatile boolean ended;
        /** Whether the opening thread is still inside Spring Data's subscribe; guarded by this. */
        private boolean opening;
        /** Guarded by this. */
        private boolean closeRequested;
        /** Whether Redis confirmed anything on it: it was open. */
        private volatile boolean confirmedOnce;

        ClassicSubscription(Listener listener) {
            this.listener = listener;
        }

        CompletableFuture<Subscription> open(List<byte[]> names) {
            List<CompletableFuture<Void>> confirmations = names.stream().map(this::expect).toList();
            synchronized (this) {
                opening = true;
            }
            Thread opener = new Thread(() -> run(names), "redis-lock-subscription");
            opener.setDaemon(true);
            opener.start();
            return bounded(CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new)), CONNECTING.plus(confirmationTimeout), "SUBSCRIBE")
                    .handle((confirmed, failure) -> {
                        if (failure != null) {
                            close();
                            throw failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(failure);
                        }
                        return this;
                    });
        }

        /** On the opening thread: subscribes, and on Jedis runs the read loop until the subscription ends. */
        private void run(List<byte[]> names) {
            try {
                RedisConnection opened = connectionFactory.getConnection();
                connection = opened;
                opened.subscribe(this, names.toArray(byte[][]::new));
            } catch (RuntimeException e) {
                ended = true;
                failAll(new DataAccessResourceFailureException("Pub/sub subscription failed: " + ScriptTransport.rootMessage(e), e));
            } finally {
                boolean closeNow;
                boolean lost;
                synchronized (this) {
                    opening = false;
                    RedisConnection opened = connection;
                    // Lettuce returns here subscribed; Jedis once the subscription ended.
                    if (opened == null || !opened.isSubscribed()) {
                        ended = true;
                    }
                    closeNow = ended || closeRequested;
                    lost = ended && !closeRequested && confirmedOnce;
                }
                if (closeNow) {
                    closeConnection();
                    sender.shutdown();
                }
                if (lost) {
                    listener.lost(); // Jedis: it broke after it was open, and nothing reconnects it
                }
            }
        }

        /** The confirmation of {@code channel} still to come, shared by everyone who subscribes it meanwhile. */
        private CompletableFuture<Void> expect(byte[] channel) {
            return unconfirmed.compute(name(channel), (name, pending) -> pending == null || pending.isDone() ? new CompletableFuture<>() : pending);
        }

        private CompletableFuture<Void> bounded(CompletableFuture<Void> confirmation, Duration bound, String what) {
            return confirmation.copy().orTimeout(bound.toNanos(), TimeUnit.NANOSECONDS).handle((done, failure) -> {
                if (failure instanceof TimeoutException) {
                    throw new QueryTimeoutException("Redis did not confirm the " + what + " within " + bound);
                }
                if (failure != null) {
                    throw failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(failure);
                }
                return null;
            });
        }

        private void failAll(RuntimeException failure) {
            unconfirmed.values().forEach(confirmation -> confirmation.completeExceptionally(failure));
            unconfirmed.clear();
        }

        @Override
        public boolean isOpen() {
            RedisConnection current = connection;
            return !ended && current != null && current.isSubscribed();
        }

        @Override
        public CompletableFuture<Void> subscribe(byte[] channel) {
            CompletableFuture<Void> confirmation = expect(channel);
            send(() -> connection.getSubscription().subscribe(channel), confirmation);
            return bounded(confirmation, confirmationTimeout, "SUBSCRIBE of " + name(channel));
        }

        @Override
        public void unsubscribe(byte[] channel) {
            send(() -> connection.getSubscription().unsubscribe(channel), null);
        }

        /** Runs {@code command} on the sender; a failure fails {@code confirmation}, or is logged when there is none. */
        private void send(Runnable command, CompletableFuture<Void> confirmation) {
            try {
                sender.execute(() -> {
                    try {
                        command.run();
                    } catch (RuntimeException e) {
                        if (confirmation != null) {
                            confirmation.completeExceptionally(
                                    new DataAccessResourceFailureException("Pub/sub command failed: " + ScriptTransport.rootMessage(e), e));
                        } else {
                            log.debug("Could not unsubscribe; the channel stays subscribed until the connection closes", e);
                        }
                    }
                });
            } catch (RejectedExecutionException closed) {
                if (confirmation != null) {
                    confirmation.completeExceptionally(new DataAccessResourceFailureException("The pub/sub connection is closed"));
                }
            }
        }

        /**
         * Lettuce: closes the connection at once. Jedis: unsubscribes everything, so that the read loop
         * ends and its thread closes the connection; closed from here if Redis does not answer in time.
         */
        @Override
        public void close() {
            synchronized (this) {
                closeRequested = true;
                if (opening) {
                    send(() -> {
                        RedisConnection current = connection;
                        if (current != null && current.isSubscribed()) {
                            current.getSubscription().close();
                        }
                    }, null);
                    try {
                        sender.schedule(this::closeConnection, confirmationTimeout.toNanos(), TimeUnit.NANOSECONDS);
                    } catch (RejectedExecutionException alreadyEnded) {
                        // the read loop ended meanwhile and closed the connection
                    }
                    return;
                }
            }
            closeConnection();
            sender.shutdown();
        }

        private void closeConnection() {
            ended = true;
            failAll(new DataAccessResourceFailureException("The pub/sub connection is closed"));
            RedisConnection current = connection;
            if (current != null && !current.isClosed()) {
                try {
                    current.close();
                } catch (RuntimeException e) {
                    log.debug("Closing the pub/sub connection failed", e);
                }
            }
        }

        @Override
        public void onMessage(Message message, byte[] pattern) {
            listener.message(message.getChannel(), message.getBody());
        }

        @Override
        public void onChannelSubscribed(byte[] channel, long count) {
            confirmedOnce = true;
            CompletableFuture<Void> confirmation = unconfirmed.remove(name(channel));
            if (confirmation != null) {
                confirmation.complete(null);
            }
            listener.subscribed(channel);
        }

        private static String name(byte[] channel) {
            return new String(channel, StandardCharsets.UTF_8);
        }
    }
}
