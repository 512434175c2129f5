package io.github.redislock.reliability;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The observer of a leader-election run, on a Redis of its own that no fault touches: every grant,
 * revocation and leader action of every {@link LeaderWorker}, time-stamped by this Redis's clock, and
 * the overlap detector: a grant while another live, unpaused instance still leads is an overlap, a term
 * not above every earlier one a violation, an action by an instance that is not the latest one granted
 * a stale action, unless its term is below the highest granted (then the resource would refuse it: fenced),
 * and an action after the instance's own revocation a violation.
 */
final class LeaderStore implements AutoCloseable {

    private static final String NOW = "local clock = redis.call('time') local now = clock[1] * 1000 + math.floor(clock[2] / 1000) ";

    /** KEYS: leaders, paused, maxTerm, violations, events, current. ARGV: worker, term. Returns the store time. */
    private static final String GRANT = NOW + """
            for _, other in ipairs(redis.call('smembers', KEYS[1])) do
                if other ~= ARGV[1] and redis.call('sismember', KEYS[2], other) == 0 then
                    redis.call('rpush', KEYS[4], 'overlap: ' .. ARGV[1] .. ' granted while ' .. other .. ' still leads')
                end
            end
            local term = tonumber(ARGV[2])
            if term > 0 then
                local max = tonumber(redis.call('get', KEYS[3]) or '0')
                if term <= max then
                    redis.call('rpush', KEYS[4], 'term ' .. ARGV[2] .. ' of ' .. ARGV[1] .. ' is not above an earlier one (' .. max .. ')')
                else
                    redis.call('set', KEYS[3], ARGV[2])
                end
            end
            redis.call('sadd', KEYS[1], ARGV[1])
            redis.call('set', KEYS[6], ARGV[1])
            redis.call('rpush', KEYS[5], 'granted|' .. ARGV[1] .. '|' .. now)
            return now
            """;

    /** KEYS: leaders, events. ARGV: worker. */
    private static final String REVOKE = NOW + """
            redis.call('srem', KEYS[1], ARGV[1])
            redis.call('rpush', KEYS[2], 'revoked|' .. ARGV[1] .. '|' .. now)
            return now
            """;

    /**
     * KEYS: leaders, current, violations, stale, maxTerm, fenced. ARGV: worker, term (0: none). An action on a
     * term below the highest granted is one the resource refuses (fenced); else one by an instance that is not
     * the latest granted is stale, and one by an instance that was revoked a violation.
     */
    private static final String ACT = NOW + """
            local term = tonumber(ARGV[2])
            if term > 0 and term < tonumber(redis.call('get', KEYS[5]) or '0') then
                redis.call('rpush', KEYS[6], ARGV[1] .. '|' .. now)
            elseif redis.call('sismember', KEYS[1], ARGV[1]) == 0 then
                redis.call('rpush', KEYS[3], 'acted while not leader: ' .. ARGV[1] .. ' at ' .. now)
            elseif redis.call('get', KEYS[2]) ~= ARGV[1] then
                redis.call('rpush', KEYS[4], ARGV[1] .. '|' .. now)
            end
            return now
            """;

    /** KEYS: events. ARGV: what, worker. */
    private static final String MARK = NOW + """
            redis.call('rpush', KEYS[1], ARGV[1] .. '|' .. ARGV[2] .. '|' .. now)
            return now
            """;

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    private LeaderStore(RedisClient client) {
        this.client = client;
        this.connection = client.connect();
        this.redis = connection.sync();
    }

    static LeaderStore connect(int port) {
        return new LeaderStore(RedisClient.create(RedisURI.create("127.0.0.1", port)));
    }

    // ---- worker side

    long granted(String worker, long term) {
        return redis.eval(GRANT, ScriptOutputType.INTEGER, new String[] {"leaders", "paused", "maxTerm", "violations", "events", "current"},
                worker, Long.toString(term));
    }

    long revoked(String worker) {
        return redis.eval(REVOKE, ScriptOutputType.INTEGER, new String[] {"leaders", "events"}, worker);
    }

    void act(String worker, long term) {
        redis.eval(ACT, ScriptOutputType.INTEGER, new String[] {"leaders", "current", "violations", "stale", "maxTerm", "fenced"},
                worker, Long.toString(term));
    }

    boolean leaveRequested(String worker) {
        return redis.exists("leave:" + worker) > 0;
    }

    void started(String worker) {
        redis.sadd("started", worker);
    }

    // ---- orchestrator side

    void reset() {
        redis.flushall();
    }

    long mark(String what, String worker) {
        return redis.eval(MARK, ScriptOutputType.INTEGER, new String[] {"events"}, what, worker);
    }

    void requestLeave(String worker) {
        redis.set("leave:" + worker, "1");
    }

    void paused(String worker, boolean paused) {
        if (paused) {
            redis.sadd("paused", worker);
        } else {
            redis.srem("paused", worker);
        }
    }

    /** A killed instance leads nothing any more. */
    void dead(String worker) {
        redis.srem("leaders", worker);
    }

    boolean isStarted(String worker) {
        return redis.sismember("started", worker);
    }

    String currentLeader() {
        return redis.get("current");
    }

    boolean leads(String worker) {
        return redis.sismember("leaders", worker);
    }

    List<String> violations() {
        return redis.lrange("violations", 0, -1);
    }

    List<String> staleActions() {
        return redis.lrange("stale", 0, -1);
    }

    List<String> fencedActions() {
        return redis.lrange("fenced", 0, -1);
    }

    /** Events as {@code what|worker|storeMillis}. */
    List<String[]> events() {
        List<String[]> events = new ArrayList<>();
        redis.lrange("events", 0, -1).forEach(event -> events.add(event.split("\\|")));
        return events;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
