package io.github.redislock.reliability;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The protected resource of the safety checker, on a Redis of its own that no fault touches: it
 * counts the occupants of each critical section, keeps the read-modify-write counters with their
 * completed-section counts, checks fencing tokens, and records every violation, lock loss and
 * failure the workers see. Workers write to it; {@link SafetyRun} reads it afterwards.
 */
final class SafetyStore implements AutoCloseable {

    static final String LOCK_PREFIX = "safety:";

    /** Adds the hold to the key's occupants; with more than one, records a violation {@code key|entrant|occupants} naming every hold inside. */
    private static final String ENTER = """
            redis.call('sadd', KEYS[1], ARGV[1])
            local occupants = redis.call('scard', KEYS[1])
            if occupants > 1 then
                redis.call('rpush', KEYS[2], ARGV[2] .. '|' .. ARGV[1] .. '|' .. table.concat(redis.call('smembers', KEYS[1]), ','))
            end
            return occupants
            """;

    /**
     * The critical section's read, fenced as its write is: it raises the key's fence to its token, so
     * that an older holder still inside cannot write between this read and this holder's write (that
     * update would be lost, fencing tokens or not).
     */
    private static final String READ = """
            local fence = tonumber(redis.call('get', KEYS[2]) or '-1')
            if tonumber(ARGV[1]) > fence then
                redis.call('set', KEYS[2], ARGV[1])
            end
            return tonumber(redis.call('get', KEYS[1]) or '0')
            """;

    /**
     * The critical section's write, with its completed-section count in the same step so a kill
     * cannot separate them. With a token (ARGV[2] >= 0) it is a fencing store: a token below the
     * highest one seen for the key (by a read or a write) is rejected and nothing is written.
     */
    private static final String WRITE = """
            local token = tonumber(ARGV[2])
            if token >= 0 then
                local fence = tonumber(redis.call('get', KEYS[3]) or '-1')
                if token < fence then
                    redis.call('rpush', KEYS[4], ARGV[3] .. '|' .. token .. '|' .. fence)
                    return 0
                end
                redis.call('set', KEYS[3], token)
            end
            redis.call('set', KEYS[1], ARGV[1])
            redis.call('incr', KEYS[2])
            return 1
            """;

    private static final String MAX = """
            local current = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or '0')
            if tonumber(ARGV[2]) > current then redis.call('hset', KEYS[1], ARGV[1], ARGV[2]) end
            return 0
            """;

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    private SafetyStore(RedisClient client) {
        this.client = client;
        this.connection = client.connect();
        this.redis = connection.sync();
    }

    static SafetyStore connect(int port) {
        return new SafetyStore(RedisClient.create(RedisURI.create("127.0.0.1", port)));
    }

    // ---- worker side

    void started(String worker, long pid, boolean fencing) {
        redis.hset("started:" + worker, Map.of("pid", Long.toString(pid), "fencing", Boolean.toString(fencing)));
    }

    boolean stopRequested() {
        return redis.exists("stop") > 0;
    }

    boolean exitRequested() {
        return redis.exists("exit") > 0;
    }

    boolean freezeRequested(String worker) {
        return redis.del("freeze:" + worker) > 0;
    }

    void frozenInside(String worker, String key) {
        redis.set("frozen:" + worker, key);
    }

    boolean thawed(String worker) {
        return redis.exists("thaw:" + worker) > 0;
    }

    void enter(String worker, String key) {
        redis.eval(ENTER, ScriptOutputType.INTEGER, new String[] {"occ:" + key, "violations"}, worker, key);
    }

    void leave(String worker, String key) {
        redis.srem("occ:" + key, worker);
    }

    long readCounter(String key) {
        String value = redis.get("counter:" + key);
        return value == null ? 0 : Long.parseLong(value);
    }

    /** The critical section's read, which fences out the writes of holders older than {@code token}. */
    long readCounter(String key, long token) {
        Long value = redis.eval(READ, ScriptOutputType.INTEGER, new String[] {"counter:" + key, "fence:" + key}, Long.toString(token));
        return value;
    }

    /** @return whether the write was accepted (always, without a token) */
    boolean write(String worker, String key, long value, Optional<Long> token) {
        Long accepted = redis.eval(WRITE, ScriptOutputType.INTEGER,
                new String[] {"counter:" + key, "sections:" + key, "fence:" + key, "fenced"},
                Long.toString(value), Long.toString(token.orElse(-1L)), worker + "|" + key);
        return accepted == 1;
    }

    void count(String worker, String what) {
        redis.hincrby("stats:" + worker, what, 1);
    }

    /** Records that {@code hold} (see {@link SafetyWorker}) lost its lock on {@code key}. */
    void lockLost(String worker, String hold, String key, String how) {
        redis.rpush("losses", hold + "|" + key + "|" + how);
        count(worker, how);
    }

    void failed(String worker, String operation, Throwable e, long millis) {
        count(worker, "failures");
        redis.sadd("failureTypes", e.getClass().getSimpleName());
        redis.eval(MAX, ScriptOutputType.INTEGER, new String[] {"stats:" + worker}, "maxFailureMillis", Long.toString(millis));
        redis.rpush("failures", worker + "|" + operation + "|" + millis + " ms|" + e.getClass().getSimpleName() + ": " + e.getMessage());
        redis.ltrim("failures", -50, -1);
    }

    void idle(String worker, int heldLocks, int waiters, int subscribedChannels, int watched) {
        redis.hset("idle:" + worker, Map.of("heldLocks", Integer.toString(heldLocks), "waiters", Integer.toString(waiters),
                "subscribedChannels", Integer.toString(subscribedChannels), "watched", Integer.toString(watched)));
    }

    // ---- checker side

    void reset() {
        redis.flushall();
    }

    void requestStop() {
        redis.set("stop", "1");
    }

    void requestExit() {
        redis.set("exit", "1");
    }

    void requestFreeze(String worker) {
        redis.set("freeze:" + worker, "1");
    }

    String frozenKey(String worker) {
        return redis.get("frozen:" + worker);
    }

    void thaw(String worker) {
        redis.set("thaw:" + worker, "1");
    }

    Map<String, String> startedInfo(String worker) {
        return redis.hgetall("started:" + worker);
    }

    Map<String, String> idleInfo(String worker) {
        return redis.hgetall("idle:" + worker);
    }

    Map<String, String> stats(String worker) {
        return redis.hgetall("stats:" + worker);
    }

    long sections(String key) {
        String value = redis.get("sections:" + key);
        return value == null ? 0 : Long.parseLong(value);
    }

    long counter(String key) {
        return readCounter(key);
    }

    long totalSections(int keyCount) {
        long total = 0;
        for (int i = 0; i < keyCount; i++) {
            total += sections("k" + i);
        }
        return total;
    }

    /** A dead worker is in no critical section any more: it can no longer write. */
    void removeOccupants(String worker, int keyCount) {
        for (int i = 0; i < keyCount; i++) {
            for (String occupant : redis.smembers("occ:k" + i)) {
                if (occupant.startsWith(worker + ".")) {
                    redis.srem("occ:k" + i, occupant);
                }
            }
        }
    }

    List<String> list(String name) {
        return new ArrayList<>(redis.lrange(name, 0, -1));
    }

    List<String> failureTypes() {
        return new ArrayList<>(redis.smembers("failureTypes"));
    }

    Map<String, Long> sumStats(List<String> workers) {
        Map<String, Long> sums = new HashMap<>();
        for (String worker : workers) {
            stats(worker).forEach((field, value) -> {
                if (field.startsWith("max")) {
                    sums.merge(field, Long.parseLong(value), Math::max);
                } else {
                    sums.merge(field, Long.parseLong(value), Long::sum);
                }
            });
        }
        return sums;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
