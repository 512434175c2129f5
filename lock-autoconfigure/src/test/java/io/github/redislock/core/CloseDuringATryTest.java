package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.core.wait.LockAttempt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Locker;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A locker closes while a try of a waiting single lock is on its way: its close withdraws every wait it
 * knows to be queued, and the try, which runs in Redis only afterwards, queues the wait again. That
 * place must go with the wait: left behind, the holder's unlock would hand the lock to a wait that is
 * gone, and the key would stay taken for the claim lease. Found in the model review (issue 30, 6a).
 *
 * <p>The try goes out through the path without a shared native connection, which runs it on the
 * executor it is given: here one that holds it until the close is done.
 */
class CloseDuringATryTest {

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "close-during-a-try-" + UUID.randomUUID();
    private final List<String> redisKeys = Internals.plainLockKeys(LockerFixture.PREFIX, key);
    private LettuceConnectionFactory factory;
    private RedisLocker closing;
    private LockerFixture holder;

    @BeforeEach
    void connect() {
        factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
        factory.setShareNativeConnection(false);
        factory.afterPropertiesSet();
        factory.start();
        closing = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(Duration.ofSeconds(3)).build();
        holder = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3));
    }

    @AfterEach
    void close() {
        closing.close();
        factory.destroy();
        holder.close();
        redis.command("DEL", redisKeys.get(0), redisKeys.get(1), redisKeys.get(2));
    }

    @Test
    void aTryThatQueuesAfterItsLockerWithdrewItsWaitsLeavesNoPlaceBehind() throws Exception {
        holder.locker.lock(key);
        LockAttempt attempt = closing.attempts.queuing(LockKind.PLAIN, LockKeys.of(LockerFixture.PREFIX, key), closing.currentOwner(),
                Locker.WATCHDOG_LEASE, Duration.ofSeconds(3).toMillis(), false, false);
        CompletableFuture<?> reply = attempt.send(true); // on its way: its reply is not settled yet

        closing.close(); // withdraws the waits it knows queued, before the try has settled (and queued the wait)
        Throwable settled = catchThrowable(() -> attempt.settle(reply.get(5, TimeUnit.SECONDS)));
        attempt.abandon(true).get(5, TimeUnit.SECONDS); // as the wait ends with that failure

        assertThat(settled).isInstanceOf(IllegalStateException.class).hasMessageContaining("Locker is closed");
        assertThat((List<?>) redis.command("LRANGE", redisKeys.get(1), "0", "-1")).as("wait queue").isEmpty();
        assertThat((List<?>) redis.command("ZRANGE", redisKeys.get(2), "0", "-1")).as("wait deadlines").isEmpty();
        holder.locker.unlock(key);
        assertThat(holder.locker.tryLock(key, 1, Locker.WATCHDOG_LEASE, TimeUnit.SECONDS)).as("free after the holder's unlock").isTrue();
        holder.locker.unlock(key);
    }
}
