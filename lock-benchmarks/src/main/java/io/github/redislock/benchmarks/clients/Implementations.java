package io.github.redislock.benchmarks.clients;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/** Every implementation the benchmark knows, in report order. */
public final class Implementations {

    /** Id of the row measuring Redis itself: the lock scripts over Lettuce's async API. */
    public static final String CEILING = "ceiling";

    private static final List<LockImplementation> ALL = List.of(
            RedisLockClient.implementation(),
            RedissonClientAdapter.implementation(),
            ReactiveRedisLockClient.implementation(),
            RedissonReactiveLockClient.implementation(),
            LockRegistryClient.implementation(RedisLockType.SPIN_LOCK),
            LockRegistryClient.implementation(RedisLockType.PUB_SUB_LOCK),
            Lock4jClient.implementation(),
            NaiveSetNxClient.implementation());

    private Implementations() {
    }

    /**
     * redis-lock's two script calls of an uncontended pair sent by hand, with no library code: measured
     * with the ceiling (same id on the command line), beside redis-lock's uncontended rows.
     */
    public static LockImplementation scriptsAlone() {
        return ScriptsAloneClient.implementation();
    }

    public static List<LockImplementation> all() {
        return ALL;
    }

    /** Ids accepted by {@code --implementations}, the ceiling included. */
    public static List<String> ids() {
        List<String> ids = new ArrayList<>(ALL.stream().map(LockImplementation::id).toList());
        ids.add(CEILING);
        return ids;
    }

    /** @throws IllegalArgumentException naming the unknown id and the known ones */
    public static List<LockImplementation> select(List<String> ids) {
        Map<String, LockImplementation> byId = ALL.stream().collect(Collectors.toMap(LockImplementation::id, Function.identity()));
        for (String id : ids) {
            if (!byId.containsKey(id) && !id.equals(CEILING)) {
                throw new IllegalArgumentException("Unknown implementation '" + id + "' in --implementations; known: " + String.join(", ", ids()));
            }
        }
        return ALL.stream().filter(implementation -> ids.contains(implementation.id())).toList();
    }
}
