package io.github.redislock.reliability;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.WatchdogState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.LockRedisException;
import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter works end to end as a Redis ACL user that may run only the commands it needs, on keys
 * under its prefix and on its own channels, created with exactly the line docs/operations.md gives for the
 * version of the server under test: that manual page is the one source of the rule, so a user who copies
 * it gets what was tested.
 */
class AclTest {

    /** A comment line of docs/operations.md naming server versions, then the {@code ACL SETUSER} line they take. */
    private static final Pattern VERSIONS_COMMENT = Pattern.compile("^# Redis ([^(]*)");
    /** {@code 6.2.x}: that minor version; {@code 7.2+}: that one and every later one. */
    private static final Pattern VERSION_RANGE = Pattern.compile("(\\d+)\\.(\\d+)(\\.x|\\+)");
    private static final String ACL_PREFIX = "ACL SETUSER locker ";

    static RedisServerProcess redis;
    static String aclLine;

    @BeforeAll
    static void startRedisWithTheUser() throws Exception {
        redis = TestRedis.startNew();
        String version = redis.info("server").get("redis_version");
        aclLine = readmeAclLineFor(version);
        redis.command(aclLine.split(" "));
    }

    /** The ACL line of docs/operations.md for a server reporting {@code redisVersion}; fails unless exactly one matches. */
    static String readmeAclLineFor(String redisVersion) throws IOException {
        int[] version = Arrays.stream(redisVersion.split("\\.")).limit(2).mapToInt(Integer::parseInt).toArray();
        List<String> matching = new ArrayList<>();
        String versions = null;
        for (String line : Files.readAllLines(Path.of("..", "docs", "operations.md"), StandardCharsets.UTF_8)) {
            Matcher comment = VERSIONS_COMMENT.matcher(line);
            if (comment.find()) {
                versions = comment.group(1);
            }
            else if (line.startsWith(ACL_PREFIX) && versions != null && covers(versions, version[0], version[1])) {
                matching.add(line);
            }
        }
        assertThat(matching).as("ACL lines of docs/operations.md for redis_version " + redisVersion).hasSize(1);
        return matching.get(0);
    }

    private static boolean covers(String versions, int major, int minor) {
        Matcher range = VERSION_RANGE.matcher(versions);
        while (range.find()) {
            int rangeMajor = Integer.parseInt(range.group(1));
            int rangeMinor = Integer.parseInt(range.group(2));
            boolean orLater = range.group(3).equals("+");
            if (major == rangeMajor && minor == rangeMinor
                    || orLater && (major > rangeMajor || major == rangeMajor && minor > rangeMinor)) {
                return true;
            }
        }
        return false;
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
                        "redis-lock.watchdog-timeout=2s", LockerFixture.CALLER_CONNECTIONS_SETTING)
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
            await().atMost(Duration.ofSeconds(5)).until(() -> context.getBean(RedisLocker.class).waiterCount() == 1);
            WatchdogState watchdog = context.getBean(RedisLocker.class).watchdogState();
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
    void theReadmeGivesExactlyOneAclLineForEverySupportedServerVersion() throws Exception {
        assertThat(readmeAclLineFor("6.2.14")).endsWith(" +client|setinfo +client|maint_notifications");
        assertThat(readmeAclLineFor("7.0.15")).doesNotContain("setinfo");
        assertThat(readmeAclLineFor("7.1.0")).doesNotContain("setinfo");
        assertThat(readmeAclLineFor("7.2.4")).endsWith(" +client|setinfo").doesNotContain("maint_notifications");
        assertThat(readmeAclLineFor("8.0.2")).endsWith(" +client|setinfo").doesNotContain("maint_notifications");
    }
}
