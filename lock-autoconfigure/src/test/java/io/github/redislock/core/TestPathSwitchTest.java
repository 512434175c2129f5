package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Test;

/**
 * The test-scope switch ({@link LockerFixture#CALLER_CONNECTIONS_PROPERTY}) really puts the fixture's blocking calls
 * on the path the JVM tests: on Lettuce's shared connection, beside the async calls, in the {@code shared-connection}
 * execution, and on a connection of their own elsewhere. Without this check a switch that stopped working would leave
 * that execution running the caller-connection path a second time, and the shared path untested, with every test green.
 */
class TestPathSwitchTest {

    @Test
    void aBlockingPairTakesAConnectionOfItsOwnOnlyOnTheCallerConnectionPath() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            for (int pair = 0; pair < 2; pair++) { // the first loads the scripts (EVAL), the second leaves EVALSHA its connection's last command
                LockHandle handle = instance.async.acquire("async", Duration.ZERO, null).toCompletableFuture().get(5, TimeUnit.SECONDS);
                instance.async.release(handle).toCompletableFuture().get(5, TimeUnit.SECONDS);
            }
            Set<String> async = idsOf(CallerConnectionsTest.clientsThatLastRanEvalsha(redis));
            assertThat(async).as("the async pair's connection").hasSize(1);

            instance.locker.lock("blocking");
            instance.locker.unlock("blocking");

            Set<String> blockingOnly = idsOf(CallerConnectionsTest.clientsThatLastRanEvalsha(redis));
            blockingOnly.removeAll(async);
            assertThat(blockingOnly).as("ids of the clients whose last command was EVALSHA, besides the async pair's %s, with %s=%s", async,
                    LockerFixture.CALLER_CONNECTIONS_PROPERTY, LockerFixture.CALLER_CONNECTIONS).hasSize(LockerFixture.CALLER_CONNECTIONS ? 1 : 0);
        }
    }

    /** The {@code id=} field of each CLIENT LIST line: a line's other fields (age, idle, memory) change between two looks. */
    private static Set<String> idsOf(Set<String> clientListLines) {
        return clientListLines.stream().map(line -> line.substring(0, line.indexOf(' '))).collect(Collectors.toCollection(HashSet::new));
    }
}
