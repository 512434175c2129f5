package io.github.redislock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.core.script.ShardedChannels;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

/**
 * Closing the pub/sub subscription closes its connection before {@code close()} returns: an application context closes
 * the Locker before the connection factory stops, and a connection still open then is in use when the factory's pool
 * shuts down ("contains unreleased connections") or closed after the factory's client is gone. The subscribing thread
 * closes the connection once it leaves Spring Data's subscribe (on Jedis, once the read loop ends); close waits for
 * that, and closes the connection itself once the client's timeout has passed.
 *
 * <p>Fails on 3a27e4b: close() in state SUBSCRIBING (Redis confirmed the subscribe, the subscribing thread has not left
 * it yet; on Jedis, for the connection's whole life) only scheduled the close: "the connection is closed when close()
 * returns, Expecting value to be true but was false", on every client.
 */
class ClassicSubscriptionCloseTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    enum Client { LETTUCE, LETTUCE_POOLED, JEDIS }

    /** Opened once the subscribing thread left Spring Data's subscribe; it waits there until then. */
    private final CountDownLatch leaveSubscribe = new CountDownLatch(1);
    private final CountDownLatch inSubscribe = new CountDownLatch(1);
    private final AtomicBoolean connectionClosed = new AtomicBoolean();
    /** The threads that closed the connection or its subscription. */
    private final Set<String> closers = ConcurrentHashMap.newKeySet();
    private RedisConnectionFactory factory;
    private ReleaseSubscriptions subscriptions;

    @AfterEach
    void stop() throws Exception {
        leaveSubscribe.countDown();
        if (subscriptions != null) {
            subscriptions.close();
        }
        ((DisposableBean) factory).destroy();
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void closingWhileTheSubscribingThreadHasNotLeftTheSubscribeWaitsForItThenClosesTheConnectionItself(Client client) throws Exception {
        open(client, true);
        if (client != Client.JEDIS) { // on Jedis it is in subscribe for the connection's life, and held once the read loop ends
            assertThat(inSubscribe.await(10, TimeUnit.SECONDS)).as("the subscribing thread returned from subscribe").isTrue();
        }

        long start = System.nanoTime();
        subscriptions.close();

        assertThat(connectionClosed).as("the connection is closed when close() returns").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close() is bounded by the client's timeout")
                .isLessThan(TIMEOUT.plusSeconds(3));
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void closingAnOpenSubscriptionClosesItsConnectionBeforeReturning(Client client) throws Exception {
        open(client, false);

        subscriptions.close();

        assertThat(connectionClosed).as("the connection is closed when close() returns").isTrue();
    }

    /**
     * Lettuce's subscribing thread leaves subscribe by itself and, finding the subscription closing, closes the connection.
     * Closing the subscription on the sender thread as well made two closers race: the connection's close found the subscription
     * closed and returned while the sender's close still ran, so close() returned too, the factory's client shut down and closed
     * that connection again, which Lettuce logs as a WARN "Connection is already closed" (once in CI at context close).
     */
    @ParameterizedTest
    @EnumSource(value = Client.class, names = {"LETTUCE", "LETTUCE_POOLED"})
    void onLettuceClosingWhileTheSubscribingThreadHasNotLeftTheSubscribeLeavesTheCloseToOneThread(Client client) throws Exception {
        open(client, true);
        assertThat(inSubscribe.await(10, TimeUnit.SECONDS)).as("the subscribing thread returned from subscribe").isTrue();
        Thread closing = new Thread(subscriptions::close, "closes the subscriptions");
        closing.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> closing.getState() == Thread.State.TIMED_WAITING || !closing.isAlive());

        leaveSubscribe.countDown();
        closing.join(10_000);

        assertThat(connectionClosed).as("the connection is closed when close() returns").isTrue();
        assertThat(closers).as("threads that closed the connection or its subscription").hasSize(1);
    }

    /** A subscription with its anchor channel confirmed; the subscribing thread held in subscribe if {@code holdInSubscribe}. */
    private void open(Client client, boolean holdInSubscribe) {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(TestRedis.shared().host(), TestRedis.shared().port());
        if (client == Client.JEDIS) {
            JedisConnectionFactory jedis = new JedisConnectionFactory(server, JedisClientConfiguration.builder().readTimeout(TIMEOUT).build()) {
                @Override
                public RedisConnection getConnection() {
                    return watched(super.getConnection(), holdInSubscribe);
                }
            };
            jedis.afterPropertiesSet();
            jedis.start();
            factory = jedis;
        } else {
            LettuceClientConfiguration configuration = client == Client.LETTUCE_POOLED
                    ? LettucePoolingClientConfiguration.builder().commandTimeout(TIMEOUT).build()
                    : LettuceClientConfiguration.builder().commandTimeout(TIMEOUT).build();
            LettuceConnectionFactory lettuce = new LettuceConnectionFactory(server, configuration) {
                @Override
                public RedisConnection getConnection() {
                    return watched(super.getConnection(), holdInSubscribe);
                }
            };
            lettuce.afterPropertiesSet();
            lettuce.start();
            factory = lettuce;
        }
        subscriptions = new ReleaseSubscriptions(ChannelSubscriber.of(factory, ShardedChannels.classic()), "lock:__anchor");
        subscriptions.join("lock:{lock:close-order}:released", null, () -> { }).join().close();
    }

    /** The factory's real connection; records when its close has completed, and holds its subscriber in subscribe if asked. */
    private RedisConnection watched(RedisConnection connection, boolean holdInSubscribe) {
        return (RedisConnection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {RedisConnection.class}, (proxy, method, args) -> {
            Object result;
            try {
                result = method.invoke(connection, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (method.getName().equals("getSubscription") && result != null) {
                return closeWatched((Subscription) result);
            }
            if (method.getName().equals("close")) {
                closers.add(Thread.currentThread().getName());
                connectionClosed.set(true);
            } else if (method.getName().equals("subscribe") && holdInSubscribe) {
                inSubscribe.countDown();
                leaveSubscribe.await();
            }
            return result;
        });
    }

    private Subscription closeWatched(Subscription subscription) {
        return (Subscription) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Subscription.class}, (proxy, method, args) -> {
            if (method.getName().equals("close")) {
                closers.add(Thread.currentThread().getName());
            }
            try {
                return method.invoke(subscription, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }
}
