package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockRedisException;
import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.testsupport.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;
import io.github.redislock.waiting.ReleaseSubscriptions;
import io.github.redislock.watchdog.LockWatchdog;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter works end to end as a Redis ACL user that may run only the commands it needs, on keys
 * under its prefix and on its own channels; the README gives the same line.
 */
class AclTest {

    /** The ACL rule of the README, for the default prefix {@code lock:}. */
    static final String ACL_RULES = "on >change-me resetkeys ~lock:* resetchannels &lock:* -@all "
            + "+evalsha +eval +exists +hget +hexists +hset +hincrby +hdel +pexpire +pttl +del +publish +subscribe +unsubscribe "
            + "+incr +get +set +time +zadd +zrem +zscore +zrange +zrangebyscore +zcard +rpush +lpop +lindex +lrem +ping +client|setinfo +client|maint_notifications";

    static RedisServerProcess redis;

    @BeforeAll
    static void startRedisWithTheUser() {
        redis = TestRedis.startNew();
        List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", "locker"));
        command.addAll(List.of(ACL_RULES.split(" ")));
        redis.command(command.toArray(String[]::new));
    }

    @AfterAll
    static void stopRedis() {
        redis.stop();
    }

    @BeforeEach
    void clearAclLog() {
        redis.command("ACL", "LOG", "RESET");
    }

    ApplicationContextRunner contextRunner(String... properties) {
        return new ApplicationContextRunner().withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.username=locker", "spring.data.redis.password=change-me", "spring.data.redis.timeout=2s",
                        "redis-lock.watchdog-timeout=600ms")
                .withPropertyValues(properties);
    }

    @Test
    void lockingWaitingRenewingAndReleasingNeedNothingBeyondTheAclRule() {
        contextRunner().run(context -> {
            Locker locker = context.getBean(Locker.class);
            locker.lock("acl");
            assertThat(locker.isLocked("acl")).isTrue();
            assertThat(locker.getHoldCount("acl")).isEqualTo(1);
            CompletableFuture<Boolean> waiter = Waiters.waitTakeAndRelease(locker, "acl");
            await().atMost(Duration.ofSeconds(5)).until(() -> context.getBean(ReleaseSubscriptions.class).waiterCount() == 1);
            LockWatchdog watchdog = context.getBean(LockWatchdog.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> watchdog.lastRenewal() != null);
            locker.unlock("acl");
            assertThat(waiter.get(5, TimeUnit.SECONDS)).as("waiter woken by the release message and got the lock").isTrue();
            assertThat(watchdog.consecutiveFailures()).isZero();
        });
        assertThat(redis.command("ACL", "LOG")).as("commands Redis refused the locker user").isEqualTo(List.of());
    }

    @Test
    void theUserCannotTouchKeysOutsideItsPrefix() {
        contextRunner("redis-lock.key-prefix=other:").run(context -> assertThatThrownBy(() -> context.getBean(Locker.class).tryLock("acl"))
                .isInstanceOf(LockRedisException.class)
                .hasMessageContaining("other:acl")
                .hasMessageContaining("NOPERM"));
    }

    @Test
    void theReadmeGivesTheSameAclLine() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        assertThat(readme).contains("ACL SETUSER locker " + ACL_RULES);
    }
}
