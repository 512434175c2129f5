package io.github.redislock.waiting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
        subscriptions = new ReleaseSubscriptions(connectionFactory, "lock:__anchor");
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
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<Boolean> earlier = threads.submit(() -> awaitRelease(channel));
            await().atMost(Duration.ofSeconds(5)).until(() -> subscriptions.parkedOn(channel) == 1);
            Future<Boolean> later = threads.submit(() -> awaitRelease(channel));
            await().atMost(Duration.ofSeconds(5)).until(() -> subscriptions.parkedOn(channel) == 2);

            redis.convertAndSend(channel, "released");

            assertThat(earlier.get(5, TimeUnit.SECONDS)).as("the earlier waiter is woken").isTrue();
            assertThat(later.isDone()).as("the later waiter keeps waiting").isFalse();
            redis.convertAndSend(channel, "released");
            assertThat(later.get(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void afterADisconnectTheNextJoinSubscribesAgainIncludingTheChannelsStillWaitedOn() throws Exception {
        String earlierChannel = "lock:{lock:before-disconnect}:released";
        String laterChannel = "lock:{lock:after-disconnect}:released";
        try (ReleaseSubscriptions.Waiting earlier = subscriptions.join(earlierChannel)) {
            subscriptions.disconnect();
            try (ReleaseSubscriptions.Waiting later = subscriptions.join(laterChannel)) {
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
        try (ReleaseSubscriptions.Waiting laterWait = subscriptions.join(channel, "2:client:7");
             ReleaseSubscriptions.Waiting otherOwner = subscriptions.join(channel, "3:client:8")) {
            redis.convertAndSend(subscriptions.inbox(), "granted:41:1:client:7"); // meant for the owner's earlier wait, delivered late
            redis.convertAndSend(subscriptions.inbox(), "granted:42:2:client:7");

            assertThat(laterWait.await(TimeUnit.SECONDS.toNanos(5))).isTrue();
            assertThat(laterWait.grantedToken()).isEqualTo(42);
            assertThat(otherOwner.await(TimeUnit.MILLISECONDS.toNanos(200))).as("another wait woken").isFalse();
            assertThat(otherOwner.grantedToken()).isEqualTo(-1);
        }
    }

    private boolean awaitRelease(String channel) throws InterruptedException {
        try (ReleaseSubscriptions.Waiting waiting = subscriptions.join(channel)) {
            return waiting.await(TimeUnit.SECONDS.toNanos(10));
        }
    }
}
