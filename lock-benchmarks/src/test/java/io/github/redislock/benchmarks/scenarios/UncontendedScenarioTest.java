package io.github.redislock.benchmarks.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.BenchmarkOptions;
import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.report.Row;
import io.github.redislock.testsupport.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The uncontended row's per-pair figures divide what grew between its two snapshots by the pairs completed
 * between the same two instants: a pair that sends a known number of Redis commands reads exactly that number,
 * at one thread and at several, although the workers run right up to each edge of the measured window.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class UncontendedScenarioTest {

    /** Commands the fake pair sends in its lock and again in its unlock. */
    private static final int COMMANDS_PER_CALL = 3;

    @Test
    void aPairOfSixCommandsReadsSixCommandsPerPairAtOneThread() {
        assertThat(commandsPerPair(1, OutputStream.nullOutputStream())).isEqualTo(2.0 * COMMANDS_PER_CALL);
    }

    @Test
    void aPairOfSixCommandsReadsSixCommandsPerPairAtEightThreads() {
        assertThat(commandsPerPair(8, OutputStream.nullOutputStream())).isEqualTo(2.0 * COMMANDS_PER_CALL);
    }

    @Test
    void theProgressGivesTheCallsOfEachCommandPerPair() {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();

        commandsPerPair(2, progress);

        assertThat(progress.toString(StandardCharsets.UTF_8))
                .contains("  calls per pair: del=1.000 exists=1.000 get=1.000 pexpire=1.000 pttl=1.000 set=1.000\n");
    }

    private static double commandsPerPair(int threads, OutputStream progress) {
        BenchmarkOptions options = BenchmarkOptions.parse("--seconds-per-row=0.5", "--warmup-seconds=0.3");
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            BenchmarkContext context = new BenchmarkContext(options, redis, List.of(), false, new PrintStream(progress, true, StandardCharsets.UTF_8));
            LockImplementation fake = new LockImplementation("known-commands", "a pair of " + 2 * COMMANDS_PER_CALL + " commands",
                    KnownCommandsClient::new, Optional.empty());

            Row row = UncontendedScenario.measure(context, Scenarios.UNCONTENDED, fake, threads);

            assertThat(row.note).isEmpty();
            assertThat(row.opsPerSecond).isPositive();
            return row.commandsPerOp;
        }
    }

    /** Not a lock: each call sends {@link #COMMANDS_PER_CALL} plain commands (no script, no INFO) and waits for their replies. */
    private static final class KnownCommandsClient implements LockClient {

        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final RedisCommands<String, String> redis;

        KnownCommandsClient(LockImplementation.ClientSettings settings) {
            client = RedisClient.create(RedisURI.create(settings.host(), settings.port()));
            connection = client.connect();
            redis = connection.sync();
        }

        @Override
        public void lock(String key) {
            redis.set(key, "held");
            redis.pexpire(key, 30_000);
            redis.pttl(key);
        }

        @Override
        public void unlock(String key) {
            redis.get(key);
            redis.exists(key);
            redis.del(key);
        }

        @Override
        public void lockRenewed(String key) {
            lock(key);
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }
}
