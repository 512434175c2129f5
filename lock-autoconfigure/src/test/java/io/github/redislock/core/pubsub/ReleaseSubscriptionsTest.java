package io.github.redislock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.core.script.ShardedChannels;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

class ReleaseSubscriptionsTest {

    LettuceConnectionFactory connectionFactory;
    ReleaseSubscriptions subscriptions;
    StringRedisTemplate redis;

    @BeforeEach
    void connect() {
        connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(TestRedis.shared().host(), TestRedis.shared().port()));
        connectionFactory.afterPropertiesSet();
        connectionFactory.start();
        subscriptions = new ReleaseSubscriptions(ChannelSubscriber.of(connectionFactory, ShardedChannels.classic()), "lock:__anchor");
        redis = new StringRedisTemplate(connectionFactory);
    }

    @AfterEach
    void disconnect() {
        subscriptions.close();
        connectionFactory.destroy();
    }

    @Test
    void aReleaseWakesTheLocalWaiterThatHasWaitedLongest() throws Exception {
        String channel = "lock:{lock:fair-wake}:released";
        String markerChannel = "lock:{lock:fair-wake-marker}:released";
        try (Listener earlier = listen(channel, null);
             Listener later = listen(channel, null);
             Listener marker = listen(markerChannel, null)) {
            redis.convertAndSend(channel, "released");
            redis.convertAndSend(markerChannel, "released");
            // One connection's messages are handled one after the other: once the marker woke its waiter, the release was handled in full.
            assertThat(marker.await(TimeUnit.SECONDS.toNanos(5))).as("marker handled").isTrue();

            assertThat(earlier.await(0)).as("the earlier waiter is woken").isTrue();
            assertThat(later.await(0)).as("the later waiter is woken by the same release").isFalse();
            redis.convertAndSend(channel, "released");
            assertThat(later.await(TimeUnit.SECONDS.toNanos(5))).isTrue();
        }
    }

    @Test
    void afterADisconnectTheNextJoinSubscribesAgainIncludingTheChannelsStillWaitedOn() throws Exception {
        String earlierChannel = "lock:{lock:before-disconnect}:released";
        String laterChannel = "lock:{lock:after-disconnect}:released";
        try (Listener earlier = listen(earlierChannel, null)) {
            subscriptions.disconnect();
            try (Listener later = listen(laterChannel, null)) {
                redis.convertAndSend(earlierChannel, "released");
                redis.convertAndSend(laterChannel, "released");

                assertThat(earlier.await(TimeUnit.SECONDS.toNanos(5))).as("woken on the channel joined before").isTrue();
                assertThat(later.await(TimeUnit.SECONDS.toNanos(5))).as("woken on the channel joined after").isTrue();
            }
        }
    }

    @Test
    void aHandOffOnTheInboxWakesOnlyTheWaitItNamesAndNotALaterWaitOfTheSameOwner() throws Exception {
        String channel = "lock:{lock:hand-off}:released";
        try (Listener laterWait = listen(channel, "2:client:7");
             Listener otherOwner = listen(channel, "3:client:8")) {
            redis.convertAndSend(subscriptions.inbox(), "granted:41:1:client:7"); // meant for the owner's earlier wait, delivered late
            redis.convertAndSend(subscriptions.inbox(), "granted:42:2:client:7");

            assertThat(laterWait.await(TimeUnit.SECONDS.toNanos(5))).isTrue();
            assertThat(laterWait.waiting.grantedToken()).isEqualTo(42);
            assertThat(otherOwner.await(TimeUnit.MILLISECONDS.toNanos(200))).as("another wait woken").isFalse();
            assertThat(otherOwner.waiting.grantedToken()).isEqualTo(-1);
        }
    }

    private Listener listen(String channel, String waitName) {
        Semaphore wakeUps = new Semaphore(0);
        return new Listener(subscriptions.join(channel, waitName, wakeUps::release).join(), wakeUps);
    }

    /** A joined waiting whose wake-ups the test counts, as a wait's steps would be asked for. */
    private record Listener(Waiting waiting, Semaphore wakeUps) implements AutoCloseable {
        /** Whether a wake-up came within {@code nanos}; it is taken. */
        boolean await(long nanos) throws InterruptedException {
            return wakeUps.tryAcquire(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void close() {
            waiting.close();
        }
    }
}
