package io.github.redislock.reliability;

import static org.awaitility.Awaitility.await;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One master, one replica and three Sentinels (down-after 1 s, quorum 2, failover timeout 5 s) as local processes, for
 * tests that fail over by killing the master. A failover takes about 3 s, but a Sentinel election with split votes waits
 * twice the failover timeout before it tries again, and a loaded machine puts Sentinels in TILT mode (30 s without
 * decisions): it took 13 s once in CI. So tests wait {@link #FAILOVER} for one and hold locks with the default 30 s watchdog
 * timeout, which outlives it on the promoted replica. Registered as a static extension, as {@code RedlockMasters} is: started
 * before a class's tests, stopped after them.
 */
final class SentinelTopology implements BeforeAllCallback, AfterAllCallback {

    static final Duration FAILOVER = Duration.ofSeconds(60);

    RedisServerProcess master;
    RedisServerProcess replica;
    final List<RedisServerProcess> sentinels = new ArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        master = TestRedis.startNew();
        replica = TestRedis.startNew("--replicaof", master.host(), Integer.toString(master.port()));
        await().atMost(Duration.ofSeconds(15)).until(() -> "up".equals(replica.info("replication").get("master_link_status")));
        for (int i = 0; i < 3; i++) {
            sentinels.add(TestRedis.startNew("--sentinel", "monitor", "mymaster", master.host(), Integer.toString(master.port()), "2",
                    "--sentinel", "down-after-milliseconds", "mymaster", "1000",
                    "--sentinel", "failover-timeout", "mymaster", "5000"));
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> sentinels.stream().allMatch(sentinel ->
                "2".equals(String.valueOf(masterField(sentinel, "num-other-sentinels"))) && "1".equals(String.valueOf(masterField(sentinel, "num-slaves")))));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        sentinels.forEach(RedisServerProcess::stop);
        if (replica != null) {
            replica.stop();
        }
        if (master != null) {
            master.stop();
        }
    }

    /** The starter configured only through Sentinel, with a 1 s command timeout and the default 30 s watchdog timeout. */
    String[] springProperties() {
        List<String> nodes = sentinels.stream().map(sentinel -> sentinel.host() + ":" + sentinel.port()).toList();
        return new String[] {"spring.data.redis.sentinel.master=mymaster", "spring.data.redis.sentinel.nodes=" + String.join(",", nodes),
                "spring.data.redis.timeout=1s", "redis-lock.watchdog-timeout=30s"};
    }

    /**
     * Restarts a killed old master and makes it a replica of {@code current} itself rather than waiting for the Sentinels
     * to: they convert it only after seeing it report master for 8 s through an INFO sent every 10 s, and not at all in
     * TILT mode (over 60 s in CI). They list it as a replica since the failover; this waits until every Sentinel sees it up
     * (PING, every second) and replicating (INFO), so that a later failover can promote it.
     */
    void rejoinAsReplica(RedisServerProcess oldMaster, RedisServerProcess current) {
        oldMaster.restart();
        // A server that turns replica may reset the connection of a command it is answering (Valkey 8 did, once): ask again.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).ignoreException(UncheckedIOException.class)
                .until(() -> "OK".equals(oldMaster.command("REPLICAOF", current.host(), Integer.toString(current.port()))));
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).ignoreException(UncheckedIOException.class)
                .until(() -> "up".equals(oldMaster.info("replication").get("master_link_status")));
        String address = oldMaster.host() + ":" + oldMaster.port();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> sentinels.stream()
                .allMatch(sentinel -> seesAHealthyReplica(sentinel, address)));
    }

    /** Whether a call succeeds: false while the master is gone and the new one not yet known. */
    static boolean answers(BooleanSupplier call) {
        try {
            return call.getAsBoolean();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean seesAHealthyReplica(RedisServerProcess sentinel, String address) {
        for (Object entry : (List<?>) sentinel.command("SENTINEL", "REPLICAS", "mymaster")) {
            Map<Object, Object> fields = fields((List<?>) entry);
            if (address.equals(fields.get("ip") + ":" + fields.get("port"))) {
                return "slave".equals(fields.get("flags")) && "slave".equals(fields.get("role-reported"))
                        && "ok".equals(fields.get("master-link-status"));
            }
        }
        return false;
    }

    private static Object masterField(RedisServerProcess sentinel, String field) {
        return fields((List<?>) sentinel.command("SENTINEL", "MASTER", "mymaster")).get(field);
    }

    private static Map<Object, Object> fields(List<?> reply) {
        Map<Object, Object> fields = new HashMap<>();
        for (int i = 0; i < reply.size() - 1; i += 2) {
            fields.put(reply.get(i), reply.get(i + 1));
        }
        return fields;
    }
}
