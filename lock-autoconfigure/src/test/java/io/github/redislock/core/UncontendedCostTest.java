package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * What Redis runs for the everyday case, one {@code lock(key)} and {@code unlock(key)} nobody else
 * wants, and for a re-entry and a try that finds the lock held: on a machine where Redis and the
 * application share cores, every command inside the scripts is time the caller waits for. Counted
 * from {@code INFO commandstats} on a server of its own, so no other test's commands can be mixed in.
 */
class UncontendedCostTest {

    /** The budget of issue 15: at most this many commands inside the scripts per uncontended pair. */
    static final int MAX_COMMANDS_PER_PAIR = 6;

    @AutoClose
    static final RedisServerProcess redis = TestRedis.startNew();

    @Test
    void anUncontendedPairRunsTwoScriptsWithAtMostSixCommandsInside() {
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            instance.locker.lock("warm-up"); // connections open, scripts loaded: only the measured pair is counted below
            instance.locker.unlock("warm-up");
            redis.resetStats();

            instance.locker.lock("measured");
            instance.locker.unlock("measured");

            Map<String, Long> calls = commandCalls();
            assertThat(calls.remove("evalsha")).as("script calls of one pair, all commands: %s", calls).isEqualTo(2L);
            calls.keySet().removeIf(command -> command.startsWith("config")); // the reset above ('config|resetstat' on Redis 7)
            long inside = calls.values().stream().mapToLong(Long::longValue).sum();
            assertThat(inside).as("commands inside the scripts of one uncontended pair: %s", calls).isLessThanOrEqualTo(MAX_COMMANDS_PER_PAIR);
            assertThat(redis.command("KEYS", "*")).as("keys left after the pair").asList().isEmpty();
        }
    }

    @Test
    void aReentryReadsTheLocksRemainingLifeOnceAndLengthensIt() {
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            instance.locker.lock("reentered");
            // The re-entry lengthens the lock only once its life has gone below the lease: let a millisecond pass.
            await().atMost(Duration.ofSeconds(1)).until(() -> (Long) redis.command("PTTL", "lock:reentered"), pttl -> pttl > 0 && pttl < 30_000);
            redis.resetStats();

            instance.locker.lock("reentered");
            Map<String, Long> calls = commandsSinceReset();
            instance.locker.unlock("reentered");
            instance.locker.unlock("reentered");

            assertThat(calls).isEqualTo(Map.of("evalsha", 1L, "pttl", 1L, "hexists", 1L, "hincrby", 1L, "pexpire", 1L));
        }
    }

    @Test
    void aTryThatFindsTheLockHeldReadsOnlyItsRemainingLifeAndTheOwnerField() throws InterruptedException {
        try (LockerFixture holder = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30));
             LockerFixture other = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            holder.locker.lock("held");
            other.locker.lock("warm-up"); // connections open, scripts loaded: only the measured try is counted below
            other.locker.unlock("warm-up");
            redis.resetStats();

            boolean taken = other.locker.tryLock("held", 0, 10, TimeUnit.SECONDS);
            Map<String, Long> calls = commandsSinceReset();
            holder.locker.unlock("held");

            assertThat(taken).isFalse();
            assertThat(calls).isEqualTo(Map.of("evalsha", 1L, "pttl", 1L, "hexists", 1L));
        }
    }

    @Test
    void anUncontendedFinalReleaseSendsOnlyTheLockAndItsOwner() {
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            instance.locker.lock("short");

            List<Object> release = scriptCallOf(() -> instance.locker.unlock("short"));

            assertThat(release).as("EVALSHA, its sha, the key count, then KEYS and ARGV").hasSize(5);
            assertThat(release.subList(2, 4)).containsExactly("1", "lock:short");
            assertThat(redis.command("KEYS", "*")).as("keys left after the release").asList().isEmpty();
        }
    }

    @Test
    void anUncontendedLockSendsTheLockAndItsLeaseOwnerAndFlagsOnly() {
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            List<Object> acquire = scriptCallOf(() -> instance.locker.lock("flags"));
            instance.locker.unlock("flags");

            // lease, owner, flags (no queue place to give up, waits, no token drawn, first hold): the first try of a wait queues nothing
            assertThat(acquire).as("EVALSHA, its sha, the key count, 1 KEY, then ARGV").hasSize(7);
            assertThat(acquire.subList(2, 4)).containsExactly("1", "lock:flags");
            assertThat(acquire.get(6)).isEqualTo("0101");
        }
    }

    @Test
    void anUncontendedLockReadsNoClockItsTokenIsNotDrawn() {
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            instance.locker.lock("warm-up");
            instance.locker.unlock("warm-up");
            redis.resetStats();

            instance.locker.lock("clockless");
            Map<String, Long> calls = commandsSinceReset();
            instance.locker.unlock("clockless");

            assertThat(calls).isEqualTo(Map.of("evalsha", 1L, "pttl", 1L, "hset", 1L, "pexpire", 1L));
        }
    }

    @Test
    void aHoldsTokenIsDrawnAtItsFirstAskOnlyAReentryAndASecondAskSendNothing() {
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            instance.locker.lock("warm-up"); // token.lua loaded: only the measured calls are counted below
            instance.locker.fencingToken("warm-up");
            instance.locker.unlock("warm-up");
            instance.locker.lock("asked");
            redis.resetStats();

            long token = instance.locker.fencingToken("asked");
            assertThat(commandsSinceReset()).as("the first ask").isEqualTo(Map.of("evalsha", 1L, "hexists", 1L, "time", 1L));
            // a re-entry extends a lease only once it has begun to run down: within the lock's first millisecond it need not
            await().atMost(Duration.ofSeconds(1)).until(() -> (Long) redis.command("PTTL", "lock:asked"), pttl -> pttl > 0 && pttl < 30_000);
            redis.resetStats();
            instance.locker.lock("asked");
            assertThat(instance.locker.fencingToken("asked")).isEqualTo(token);
            assertThat(instance.locker.fencingToken("asked")).isEqualTo(token);
            Map<String, Long> calls = commandsSinceReset();
            instance.locker.unlock("asked");
            instance.locker.unlock("asked");

            assertThat(calls).as("a re-entry and two asks").isEqualTo(Map.of("evalsha", 1L, "pttl", 1L, "hexists", 1L, "hincrby", 1L, "pexpire", 1L));
        }
    }

    @Test
    void anAsyncHandlesTokenIsDrawnWithItsAcquisitionSoReadingItSendsNothing() throws Exception {
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            LockHandle handle = instance.async.acquire("handle", Duration.ZERO, Duration.ofSeconds(10)).get(5, TimeUnit.SECONDS);
            redis.resetStats();

            assertThat(handle.fencingToken()).isPositive();
            Map<String, Long> calls = commandsSinceReset();
            instance.async.release(handle).get(5, TimeUnit.SECONDS);

            assertThat(calls).isEmpty();
        }
    }

    @Test
    void aReactiveHandlesTokenIsDrawnWithItsAcquisitionSoReadingItSendsNothing() {
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            RedisReactiveLocker reactive = new RedisReactiveLocker(instance.async);
            LockHandle handle = reactive.acquire("reactive", Duration.ZERO, Duration.ofSeconds(10)).block(Duration.ofSeconds(5));
            redis.resetStats();

            assertThat(handle.fencingToken()).isPositive();
            Map<String, Long> calls = commandsSinceReset();
            reactive.release(handle, Duration.ZERO).block(Duration.ofSeconds(5));

            assertThat(calls).isEmpty();
        }
    }

    /** The arguments of the one script call {@code action} makes, from the slow log with every command logged. */
    @SuppressWarnings("unchecked")
    private static List<Object> scriptCallOf(Runnable action) {
        redis.command("CONFIG", "SET", "slowlog-log-slower-than", "0");
        try {
            redis.command("SLOWLOG", "RESET");
            action.run();
            List<List<Object>> calls = ((List<?>) redis.command("SLOWLOG", "GET", "100")).stream().map(entry -> (List<Object>) ((List<?>) entry).get(3))
                    .filter(call -> "evalsha".equalsIgnoreCase((String) call.get(0))).toList();
            assertThat(calls).as("script calls").hasSize(1);
            return calls.get(0);
        } finally {
            redis.command("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        }
    }

    /** {@link #commandCalls} without the reset itself ('config|resetstat' on Redis 7). */
    private static Map<String, Long> commandsSinceReset() {
        Map<String, Long> calls = commandCalls();
        calls.keySet().removeIf(command -> command.startsWith("config"));
        return calls;
    }

    /** Calls per command since the reset, {@code INFO} itself left out. */
    private static Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        redis.info("commandstats").forEach((name, stats) -> {
            String command = name.substring("cmdstat_".length());
            if (!command.equals("info")) {
                for (String field : stats.split(",")) {
                    if (field.startsWith("calls=")) {
                        calls.put(command, Long.parseLong(field.substring("calls=".length())));
                    }
                }
            }
        });
        return calls;
    }
}
