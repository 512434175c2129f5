package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockObserver;
import io.github.redislock.LockRedisException;
import io.github.redislock.core.pubsub.ChannelSubscriber;
import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.ShardedChannels;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A wait whose release channel Redis never confirms. Jedis sends a SUBSCRIBE without awaiting its reply, so
 * only the confirmation's own bound, the client's read timeout, ends the wait. The channels go to a Redis of
 * their own, stopped ({@code SIGSTOP}) while the locks' Redis answers.
 */
class UnconfirmedSubscribeTest {

    private static final Duration READ_TIMEOUT = Duration.ofMillis(500);

    @Test
    void aWaitWhoseSubscribeRedisNeverConfirmsFailsSayingSoAndNamingTheLockAndItsChannel() throws Exception {
        String key = "unconfirmed-subscribe-" + UUID.randomUUID();
        RedisServerProcess pubSubRedis = TestRedis.startNew();
        JedisConnectionFactory pubSub = new JedisConnectionFactory(new RedisStandaloneConfiguration(pubSubRedis.host(), pubSubRedis.port()),
                JedisClientConfiguration.builder().readTimeout(READ_TIMEOUT).usePooling().build());
        pubSub.afterPropertiesSet();
        pubSub.start();
        LettuceConnectionFactory locks = LockerFixture.startedLettuce(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(5));
        LockCommands commands = new LockCommands(locks, Duration.ofSeconds(30), null, ShardedChannels.classic(), false);
        RedisLocker locker = new RedisLocker(commands, new LockWatchdog(Duration.ofSeconds(30), commands, LockObserver.NONE),
                new ReleaseSubscriptions(ChannelSubscriber.of(pubSub, ShardedChannels.classic()), LockerFixture.PREFIX + "__anchor"),
                LockerFixture.PREFIX, event -> {
                }, LockObserver.NONE);
        try {
            Internals.join(locker, LockerFixture.PREFIX + "{warm-up}:released").close(); // the connection is open
            locker.lock(key);
            pubSubRedis.pause();

            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return locker.tryLock(key, 5, 60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });

            assertThat(waiter).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
                    .havingCause().isInstanceOf(LockRedisException.class).withMessageContaining("did not confirm")
                    .withMessageContaining(key).withMessageContaining(LockKeys.of(LockerFixture.PREFIX, key).channel());
        } finally {
            if (pubSubRedis.isPaused()) {
                pubSubRedis.resume();
            }
            locker.close();
            locks.destroy();
            pubSub.destroy();
            pubSubRedis.close();
            List<String> del = new ArrayList<>(List.of("DEL"));
            del.addAll(Internals.plainLockKeys(LockerFixture.PREFIX, key));
            TestRedis.shared().command(del.toArray(String[]::new));
        }
    }
}
