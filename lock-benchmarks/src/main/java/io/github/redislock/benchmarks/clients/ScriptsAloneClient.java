package io.github.redislock.benchmarks.clients;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.benchmarks.scenarios.CeilingCalls;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * redis-lock's own acquire and release script calls for an uncontended {@code lock(key)} and its
 * {@code unlock(key)}, exactly as the library builds them ({@link CeilingCalls}), sent by each thread
 * through Lettuce's blocking API on one connection with no library code around them: no holds, no
 * watchdog, no Spring connection factory. Set beside redis-lock's row at the same T, it splits the
 * time of a pair into what the lock model costs Redis and the round trips, and what the library's
 * client adds. Not a lock: it measures uncontended pairs only and fails on a lock it finds held.
 */
final class ScriptsAloneClient implements LockClient {

    private static final String PREFIX = "lock:";

    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final RedisCommands<byte[], byte[]> redis;
    private final String clientId = UUID.randomUUID().toString();
    private final long leaseMillis;
    /** Per key, built once: the row measures the script calls, not the building of their arguments. */
    private final Map<String, CeilingCalls.Call[]> calls = new ConcurrentHashMap<>();

    ScriptsAloneClient(LockImplementation.ClientSettings settings) {
        settings.requireStandalone("The scripts-alone row");
        client = RedisClient.create(RedisURI.create(settings.host(), settings.port()));
        connection = client.connect(ByteArrayCodec.INSTANCE);
        redis = connection.sync();
        leaseMillis = settings.watchdogTimeout().toMillis();
        for (CeilingCalls.Call call : callsOf("load")) {
            redis.scriptLoad(CeilingCalls.body(call).getBytes(StandardCharsets.UTF_8));
        }
    }

    static LockImplementation implementation() {
        return new LockImplementation("redis-lock-scripts", "redis-lock's scripts alone (Lettuce sync, no library code)",
                ScriptsAloneClient::new, Optional.of("not a lock: it measures uncontended script calls only"));
    }

    @Override
    public void lock(String key) {
        CeilingCalls.Call acquire = calls(key)[0];
        List<Object> reply = redis.evalsha(acquire.sha1(), ScriptOutputType.MULTI, acquire.keys(), acquire.args());
        if (reply.size() != 1) { // a first hold's lone 1, no token drawn (MULTI reads a lone integer as a list of one)
            throw new IllegalStateException("The scripts-alone row found lock " + key + " held: it measures uncontended pairs only");
        }
    }

    @Override
    public void unlock(String key) {
        CeilingCalls.Call release = calls(key)[1];
        Long reply = redis.evalsha(release.sha1(), ScriptOutputType.INTEGER, release.keys(), release.args());
        if (reply != 0) {
            throw new IllegalStateException("The scripts-alone row's release of lock " + key + " answered " + reply + ", not a free lock");
        }
    }

    @Override
    public void lockRenewed(String key) {
        throw new UnsupportedOperationException("The scripts-alone row is not a lock and renews nothing");
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }

    /** The calling thread's acquire and release calls for a key; each key of the scenario has one thread. */
    private CeilingCalls.Call[] calls(String key) {
        return calls.computeIfAbsent(key, this::callsOf);
    }

    private CeilingCalls.Call[] callsOf(String key) {
        String owner = clientId + ":" + Thread.currentThread().getId();
        return new CeilingCalls.Call[] {CeilingCalls.acquire(PREFIX, key, owner, leaseMillis),
                CeilingCalls.release(PREFIX, key, owner)};
    }
}
