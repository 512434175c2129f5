package io.github.redislock.core.pubsub;

import io.github.redislock.core.renewal.DaemonThreads;
import io.github.redislock.core.script.ScriptTransport;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code SUBSCRIBE} through Spring Data Redis, whose subscribe on Jedis runs the read loop until the last channel
 * is unsubscribed: so no caller ever runs it. A thread per connection opens and subscribes (on Jedis, reads),
 * another sends every later (un)subscribe in order. A broken Jedis subscription is {@link ReleaseSubscriptions#lost()}.
 */
final class ClassicSubscription implements ChannelSubscriber.Subscription, MessageListener, SubscriptionListener {

    private static final Log log = LogFactory.getLog(ClassicSubscription.class);
    /** What opening a connection may take beyond the command timeout: Lettuce's default connect timeout. */
    private static final Duration CONNECTING = Duration.ofSeconds(10);
    /** The Jedis subscriptions that keep a pooled connection, and their factories. */
    private static final Map<ClassicSubscription, RedisConnectionFactory> KEEPING_JEDIS = new ConcurrentHashMap<>();

    private final RedisConnectionFactory connectionFactory;
    private final ReleaseSubscriptions listener;
    private final Duration timeout;
    /** The only thread that writes to an open subscription. */
    private final ExecutorService sender = Executors.newSingleThreadExecutor(DaemonThreads.named("redis-lock-subscriber"));
    /** Completes at Redis's first confirmation: only then can later subscribes go on Spring Data's subscription. */
    private final CompletableFuture<ChannelSubscriber.Subscription> opened = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile RedisConnection connection;
    /** Written under this. SUBSCRIBING: the opening thread is inside Spring Data's subscribe (on Jedis, for the connection's life). */
    private volatile State state = State.SUBSCRIBING;

    private enum State { SUBSCRIBING, OPEN, CLOSING, ENDED }

    private ClassicSubscription(RedisConnectionFactory connectionFactory, ReleaseSubscriptions listener) {
        this.connectionFactory = connectionFactory;
        this.timeout = ScriptTransport.clientTimeout(connectionFactory);
        this.listener = listener;
    }

    static CompletableFuture<ChannelSubscriber.Subscription> open(RedisConnectionFactory connectionFactory, byte[] inbox, ReleaseSubscriptions listener) {
        ClassicSubscription subscription = new ClassicSubscription(connectionFactory, listener);
        DaemonThreads.named("redis-lock-subscription").newThread(() -> subscription.run(inbox)).start();
        return subscription.opened.orTimeout(CONNECTING.plus(subscription.timeout).toNanos(), TimeUnit.NANOSECONDS).whenComplete((open, failure) -> {
            if (failure != null) { // not on the thread that failed it: it may be the subscribing one, which close waits for
                subscription.onSender(subscription::close);
            }
        });
    }

    private void run(byte[] inbox) {
        boolean subscribed = false;
        try {
            keepJedisPooledConnection();
            connection = connectionFactory.getConnection();
            connection.subscribe(this, inbox);
            subscribed = connection.isSubscribed(); // Lettuce returns here subscribed; Jedis once the subscription ended
        } catch (RuntimeException e) {
            opened.completeExceptionally(e);
        }
        State was;
        synchronized (this) {
            was = state;
            state = was == State.SUBSCRIBING && subscribed ? State.OPEN : State.ENDED;
        }
        if (was != State.SUBSCRIBING || !subscribed) {
            closeConnection();
            if (was == State.SUBSCRIBING && opened.isDone() && !opened.isCompletedExceptionally()) {
                listener.lost(); // Jedis: it broke after it was open, not closed
            }
        }
    }

    @Override
    public boolean isOpen() {
        RedisConnection current = connection;
        return state != State.ENDED && current != null && current.isSubscribed();
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public CompletableFuture<Void> subscribe(byte[] channel) {
        return onSender(() -> {
            if (state == State.SUBSCRIBING || state == State.OPEN) { // else a join chained before the close: sending would race it
                connection.getSubscription().subscribe(channel);
            }
        });
    }

    @Override
    public void unsubscribe(byte[] channel) {
        onSender(() -> connection.getSubscription().unsubscribe(channel));
    }

    private CompletableFuture<Void> onSender(Runnable command) {
        return ScriptTransport.started(() -> CompletableFuture.runAsync(command, sender)).whenComplete((sent, failure) -> {
            if (failure != null) { // also a closed sender's refusal
                log.debug("Pub/sub command failed; an unsubscribed channel stays subscribed until the connection closes", failure);
            }
        });
    }

    /** Returns with the connection closed, as its factory may stop next, by one closer: a thread in subscribe as it leaves (Jedis's reads there: made to). */
    @Override
    public void close() {
        synchronized (this) {
            if (state == State.SUBSCRIBING) {
                state = State.CLOSING;
                onSender(() -> {
                    if (isOpen() && !(connectionFactory instanceof LettuceConnectionFactory)) { // Lettuce's leaves by itself; closed twice, it warns
                        connection.getSubscription().close();
                    }
                });
            }
        }
        if (state == State.CLOSING) { // unless it has closed it meanwhile; closed here if that thread is stuck
            closed.copy().completeOnTimeout(null, timeout.toNanos(), TimeUnit.NANOSECONDS).join();
        }
        closeConnection();
    }

    /**
     * A Jedis subscription keeps a pooled connection while it lives: one that took the pool's last would leave every lock call,
     * unlocks too, waiting for a connection (for ever, by the pool's default max-wait). It is refused, naming the setting.
     */
    private void keepJedisPooledConnection() {
        if (ScriptTransport.JEDIS_PRESENT && connectionFactory instanceof JedisConnectionFactory jedis && jedis.getUsePool() && jedis.getPoolConfig() != null) {
            synchronized (KEEPING_JEDIS) {
                long keeping = 1 + KEEPING_JEDIS.values().stream().filter(connectionFactory::equals).count();
                int max = jedis.getPoolConfig().getMaxTotal();
                if (max >= 0 && keeping >= max) {
                    throw new IllegalStateException("The Jedis pool allows " + max + " connection(s) (spring.data.redis.jedis.pool.max-active) "
                            + "and redis-lock's pub/sub subscriptions would keep " + keeping + ", leaving none for lock calls; allow at least "
                            + (keeping + 1));
                }
                KEEPING_JEDIS.put(this, connectionFactory);
            }
        }
    }

    private synchronized void closeConnection() {
        KEEPING_JEDIS.remove(this);
        state = State.ENDED;
        sender.shutdown(); // after a close's pending commands
        RedisConnection current = connection;
        if (current != null && !current.isClosed()) {
            try {
                current.close();
            } catch (RuntimeException e) {
                log.debug("Closing the pub/sub connection failed", e);
            }
        }
        closed.complete(null);
    }

    @Override
    public void onMessage(Message message, byte[] pattern) {
        listener.message(message.getChannel(), message.getBody());
    }

    @Override
    public void onChannelSubscribed(byte[] channel, long count) {
        listener.subscribed(channel, false);
        opened.complete(this);
    }
}
