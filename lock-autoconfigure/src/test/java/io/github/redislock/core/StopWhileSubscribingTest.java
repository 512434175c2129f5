package io.github.redislock.core;

import io.github.redislock.core.pubsub.ChannelSubscriber;
import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.ShardedChannels;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A context stops ({@link RedisLocker#disconnectSubscriptions()}) while a wait's subscription to its
 * release channel is still unconfirmed. The subscriptions here go to a Redis of their own, which hangs
 * ({@code SIGSTOP}) while the locks' Redis answers: the subscription never confirms, as on a hung
 * master, yet the wait must not stay in that step until its deadline, nor fail: it looks at its lock
 * again at once (and finds it handed over), as every wait does whose subscription closed under it.
 */
class StopWhileSubscribingTest {

    /** Longer than every bound checked below, so that only the stop can let the wait go on. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration AT_ONCE = Duration.ofMillis(1500);

    private final String key = "stop-while-subscribing-" + UUID.randomUUID();
    private RedisServerProcess pubSubRedis;
    private LettuceConnectionFactory locks;
    private LettuceConnectionFactory pubSub;
    private RedisLocker locker;
    private RedisAsyncLocker async;

    @BeforeEach
    void connect() {
        pubSubRedis = TestRedis.startNew();
        locks = LockerFixture.startedLettuce(TestRedis.shared().host(), TestRedis.shared().port(), COMMAND_TIMEOUT);
        pubSub = LockerFixture.startedLettuce(pubSubRedis.host(), pubSubRedis.port(), COMMAND_TIMEOUT);
        LockCommands commands = new LockCommands(locks, Duration.ofSeconds(30), null, ShardedChannels.classic(), false);
        locker = new RedisLocker(commands, new LockWatchdog(Duration.ofSeconds(30), commands, LockObserver.NONE),
                new ReleaseSubscriptions(ChannelSubscriber.of(pubSub, ShardedChannels.classic()), LockerFixture.PREFIX + "__anchor"),
                LockerFixture.PREFIX, event -> {
                }, LockObserver.NONE);
        async = new RedisAsyncLocker(locker);
    }

    @AfterEach
    void close() {
        try {
            if (pubSubRedis.isPaused()) {
                pubSubRedis.resume();
            }
            async.close();
            locker.close();
            locks.destroy();
            pubSub.destroy();
        } finally {
            pubSubRedis.close();
            List<String> del = new ArrayList<>(List.of("DEL"));
            del.addAll(Internals.plainLockKeys(LockerFixture.PREFIX, key));
            TestRedis.shared().command(del.toArray(String[]::new));
        }
    }

    @Test
    void aWaitWhosePubSubConnectionIsStillOpeningWhenTheContextStopsLooksAtItsLockAtOnce() throws Exception {
        pubSubRedis.pause();

        stopWhileTheWaitSubscribes();
    }

    @Test
    void aWaitWhoseSubscribeIsUnconfirmedWhenTheContextStopsLooksAtItsLockAtOnce() throws Exception {
        Internals.join(locker, LockerFixture.PREFIX + "{warm-up}:released").close(); // the connection is open
        pubSubRedis.pause();

        stopWhileTheWaitSubscribes();
    }

    /**
     * The connection that was still opening at the stop opens later, when Redis answers again, and the close
     * queued behind it runs then. That happens on the client's event loop, which closing a Lettuce connection
     * waits for: run there, the close would wait for itself, and the client's shutdown for it, for ever.
     */
    @Test
    void aPubSubConnectionStillOpeningAtTheStopClosesOnceOpenAndLetsTheClientShutDown() throws Exception {
        pubSubRedis.pause();
        stopWhileTheWaitSubscribes();

        pubSubRedis.resume();
        await("the connection opened and closed again").atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(pubSubRedis.command("CLIENT", "LIST").toString()).as("clients of the pub/sub Redis")
                        .doesNotContain("cmd=subscribe"));
        CompletableFuture<Void> shutdown = CompletableFuture.runAsync(pubSub::destroy);
        assertThat(shutdown).as("the pub/sub client's shutdown").succeedsWithin(Duration.ofSeconds(10));
    }

    /** The holder hands the lock to the wait while its subscription hangs, and the context stops. */
    private void stopWhileTheWaitSubscribes() throws Exception {
        locker.lock(key);
        CompletableFuture<LockHandle> waiting = async.acquire(key, Duration.ofSeconds(20), null);
        await("the wait subscribing").atMost(Duration.ofSeconds(10)).until(() -> locker.subscriptions.subscribedChannelCount() > 0);
        locker.unlock(key); // hands the lock to the queued wait; the release message goes where the subscription is not

        locker.disconnectSubscriptions();

        assertThat(waiting).as("the wait, once the stop let go of its subscription").succeedsWithin(AT_ONCE);
        async.release(waiting.get()).get(5, TimeUnit.SECONDS);
    }
}
