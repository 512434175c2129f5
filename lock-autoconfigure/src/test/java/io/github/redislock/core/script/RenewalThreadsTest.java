package io.github.redislock.core.script;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.renewal.WatchedLock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Test;

/**
 * Renewal on a connection factory without a shared native connection (Jedis) waits for Redis on
 * threads of its own: a flood of renewal batches that Redis does not answer (a paused server) must
 * not start a thread per batch.
 */
class RenewalThreadsTest {

    private static final int BATCHES = 4 * LockCommands.RENEWAL_THREADS;

    @Test
    void aFloodOfUnansweredRenewalsStartsNoMoreThanTheBoundedRenewalThreads() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture jedis = LockerFixture.connectJedis(redis.host(), redis.port(), Duration.ofSeconds(1))) {
            WatchedLock lock = new WatchedLock() {
                @Override
                public String redisKey() {
                    return "lock:renewal-flood";
                }

                @Override
                public String ownerField() {
                    return "nobody:1";
                }

                @Override
                public void lost(String reason) {
                }
            };
            jedis.commands.send(List.of(lock), 1000).lost(); // answered: the transport knows the topology before Redis stops answering
            redis.pause();
            try {
                for (int i = 0; i < BATCHES; i++) {
                    jedis.commands.send(List.of(lock), 1000); // replies never awaited: each batch stays in flight
                }
                Thread.sleep(200); // lets every batch that got a thread reach its blocking read
                assertThat(renewalThreads()).as("renewal threads with " + BATCHES + " batches in flight")
                        .isPositive().isLessThanOrEqualTo(LockCommands.RENEWAL_THREADS);
            } finally {
                redis.resume();
            }
        }
    }

    private static long renewalThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals("redis-lock-renewal")).count();
    }
}
