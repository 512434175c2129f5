package io.github.redislock.benchmarks.clients;

import java.nio.file.Path;
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

    /** Id of redis-lock as an earlier commit built it, loaded from {@code --baseline-jar}. */
    public static final String BASELINE = BaselineRedisLockClient.ID;

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

    /** Ids accepted by {@code --implementations}, the ceiling included; the baseline's only with {@code --baseline-jar}. */
    public static List<String> ids() {
        List<String> ids = new ArrayList<>(ALL.stream().map(LockImplementation::id).toList());
        ids.add(CEILING);
        ids.add(BASELINE);
        return ids;
    }

    /** The run's implementations when {@code --implementations} is not given: all but the baseline. */
    public static List<String> defaultIds() {
        return ids().stream().filter(id -> !id.equals(BASELINE)).toList();
    }

    /**
     * Checks the ids without loading anything.
     *
     * @throws IllegalArgumentException naming the unknown id and the known ones, or the baseline without its jar
     */
    public static void validate(List<String> ids, boolean baselineJarGiven) {
        Map<String, LockImplementation> byId = ALL.stream().collect(Collectors.toMap(LockImplementation::id, Function.identity()));
        for (String id : ids) {
            if (id.equals(BASELINE) && !baselineJarGiven) {
                throw new IllegalArgumentException("--implementations names " + BASELINE + " but no --baseline-jar says which library that is");
            }
            if (!byId.containsKey(id) && !id.equals(CEILING) && !id.equals(BASELINE)) {
                throw new IllegalArgumentException("Unknown implementation '" + id + "' in --implementations; known: " + String.join(", ", ids()));
            }
        }
    }

    /**
     * The chosen implementations in report order, the baseline right after redis-lock.
     *
     * @param baselineJar   the earlier commit's lock-autoconfigure jar, or null
     * @param baselineLabel how the report names that commit
     */
    public static List<LockImplementation> select(List<String> ids, Path baselineJar, String baselineLabel) {
        validate(ids, baselineJar != null);
        List<LockImplementation> chosen = new ArrayList<>(ALL.stream().filter(implementation -> ids.contains(implementation.id())).toList());
        if (ids.contains(BASELINE)) {
            chosen.add(chosen.isEmpty() || !chosen.get(0).id().equals("redis-lock") ? 0 : 1,
                    BaselineRedisLockClient.implementation(baselineJar, baselineLabel));
        }
        return chosen;
    }
}
