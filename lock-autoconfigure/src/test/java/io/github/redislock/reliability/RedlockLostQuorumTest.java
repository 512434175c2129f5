package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedlockLocker;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.RedlockMasters;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The blocking Redlock locker while two of its three masters hang ({@code kill -STOP}), so no quorum can answer: an
 * acquisition fails within its wait plus a node timeout and leaves no copy on the healthy master, and a release returns within
 * a node timeout having freed the healthy master's copy; once the hung masters run what they were sent, no copy is left there
 * either ({@code RedlockHungMasterTest} has one hung master, which the quorum of the other two outvotes).
 */
class RedlockLostQuorumTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(300);
    /** A call's bound beyond what it waits: a round's node timeout and the scheduling of a loaded machine. */
    private static final Duration SLACK = Duration.ofMillis(1500);

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private RedlockLocker client;
    private String key;

    @BeforeEach
    void connect() {
        key = "no-quorum-" + UUID.randomUUID();
        List<RedisConnectionFactory> nodes = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (RedisServerProcess master : masters.list()) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(master.host(), master.port()),
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
            factory.afterPropertiesSet();
            factory.start();
            factories.add(factory);
            nodes.add(factory);
            names.add(master.host() + ":" + master.port());
        }
        client = new RedlockLocker(nodes, names, NODE_TIMEOUT, Duration.ofMillis(20), Duration.ofSeconds(3), "lock:", event -> { });
        String warmUp = "warm-up-" + UUID.randomUUID(); // connects to every master and loads the scripts
        client.lock(warmUp);
        client.unlock(warmUp);
    }

    @AfterEach
    void close() {
        masters.get(1).resume();
        masters.get(2).resume();
        client.close();
        factories.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void anAcquisitionWithoutAQuorumFailsWithinItsWaitAndANodeTimeoutAndLeavesNoCopy() throws Exception {
        Duration wait = Duration.ofMillis(500);
        hangTwoMasters();
        long start = System.nanoTime();
        Throwable failed = catchThrowable(() -> assertThat(client.tryLock(key, wait.toMillis(), -1, TimeUnit.MILLISECONDS)).isFalse());
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(failed).as("a failed acquisition answers false (or a Redis failure), nothing else").satisfiesAnyOf(
                thrown -> assertThat(thrown).isNull(), thrown -> assertThat(thrown).isInstanceOf(io.github.redislock.LockRedisException.class));
        assertThat(took).as("the failed acquisition").isLessThan(wait.plus(NODE_TIMEOUT).plus(SLACK));
        assertThat(masters.get(0).command("EXISTS", "lock:" + key)).as("a copy on the healthy master").isEqualTo(0L);
        assertThat(client.heldLockCount()).isZero();

        masters.get(1).resume();
        masters.get(2).resume();
        awaitNoCopyLeft();
    }

    @Test
    void aReleaseWithoutAQuorumReturnsWithinANodeTimeoutAndLeavesNoCopy() {
        client.lock(key);
        assertThat(masters.copiesOf("lock:" + key)).isEqualTo(3);
        hangTwoMasters();
        long start = System.nanoTime();
        Throwable released = catchThrowable(() -> client.unlock(key));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("the release (" + released + ")").isLessThan(NODE_TIMEOUT.plus(SLACK));
        assertThat(masters.get(0).command("EXISTS", "lock:" + key)).as("the healthy master's copy").isEqualTo(0L);
        assertThat(client.heldLockCount()).isZero();

        masters.get(1).resume();
        masters.get(2).resume();
        awaitNoCopyLeft();
    }

    private void hangTwoMasters() {
        masters.get(1).pause();
        masters.get(2).pause();
    }

    private void awaitNoCopyLeft() {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(masters.copiesOf("lock:" + key)).as("copies of '%s' on the masters", key).isZero());
    }
}
