package io.github.redislock.benchmarks.measure;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.github.redislock.testsupport.RedisServerProcess;

/** A snapshot of {@code INFO commandstats}: calls per command since the server started. */
public record RedisCommandStats(Map<String, Long> calls) {

    private static final String PREFIX = "cmdstat_";

    public static RedisCommandStats of(RedisServerProcess redis) {
        return of(List.of(redis));
    }

    /** The calls of every server added up, e.g. of every master of a cluster. */
    public static RedisCommandStats of(List<RedisServerProcess> servers) {
        Map<String, Long> calls = new HashMap<>();
        for (RedisServerProcess redis : servers) {
            redis.info("commandstats").forEach((name, value) -> {
                if (name.startsWith(PREFIX)) {
                    for (String field : value.split(",")) {
                        if (field.startsWith("calls=")) {
                            calls.merge(name.substring(PREFIX.length()).toLowerCase(Locale.ROOT), Long.parseLong(field.substring(6)), Long::sum);
                        }
                    }
                }
            });
        }
        return new RedisCommandStats(Map.copyOf(calls));
    }

    /** Calls of one command (lower case, e.g. {@code publish}; those inside scripts included) since {@code earlier}. */
    public long callsSince(RedisCommandStats earlier, String command) {
        return calls.getOrDefault(command, 0L) - earlier.calls.getOrDefault(command, 0L);
    }

    /** Commands run since {@code earlier}, without the INFO calls that took the snapshots. */
    public long commandsSince(RedisCommandStats earlier) {
        return growthSince(earlier).values().stream().mapToLong(Long::longValue).sum();
    }

    /** Calls of each command that ran since {@code earlier}, by name, without the INFO calls that took the snapshots. */
    public Map<String, Long> growthSince(RedisCommandStats earlier) {
        Map<String, Long> growth = new TreeMap<>();
        for (Map.Entry<String, Long> entry : calls.entrySet()) {
            long since = entry.getValue() - earlier.calls.getOrDefault(entry.getKey(), 0L);
            if (!entry.getKey().equals("info") && since != 0) {
                growth.put(entry.getKey(), since);
            }
        }
        return growth;
    }

    /** Lua script calls (EVAL, EVALSHA and their read-only forms) since {@code earlier}. */
    public long scriptCallsSince(RedisCommandStats earlier) {
        long total = 0;
        for (String script : new String[] {"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall"}) {
            total += calls.getOrDefault(script, 0L) - earlier.calls.getOrDefault(script, 0L);
        }
        return total;
    }
}
