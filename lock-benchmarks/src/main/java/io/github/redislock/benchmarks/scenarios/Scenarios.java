package io.github.redislock.benchmarks.scenarios;

import java.util.List;

import io.github.redislock.benchmarks.clients.Implementations;
import io.github.redislock.benchmarks.clients.LockImplementation;

/** Every scenario the benchmark knows, in report order. */
public final class Scenarios {

    public static final String UNCONTENDED = "uncontended";
    public static final String CONTENDED = "contended";
    public static final String RENEWAL = "renewal";
    public static final String ANNOTATION = "annotation";
    public static final String WAITERS = "waiters";
    public static final String HELD_LOCKS = "held-locks";
    public static final String CLUSTER = "cluster";
    public static final String OLD_VS_NEW = "old-vs-new";

    private static final List<Scenario> ALL = List.of(new UncontendedScenario(), new ContendedScenario(), new RenewalScenario(), new AnnotationScenario(),
            new WaitersScenario(), new HeldLocksScenario(), new ClusterScenario(), new OldVsNewScenario());

    /** The peers the scale scenarios run beside redis-lock: the others' waiting (polling) or renewal (a timer per lock) does not scale that far. */
    private static final List<String> AT_SCALE = List.of("redis-lock", "redisson");
    /** With them on one server, the earlier redis-lock of {@code --baseline-jar} (it connects to a standalone server only). */
    private static final List<String> AT_SCALE_STANDALONE = List.of("redis-lock", "redisson", Implementations.BASELINE);

    private Scenarios() {
    }

    public static List<Scenario> all() {
        return ALL;
    }

    /** The run's scenarios when {@code --scenarios} is not given: all but {@value #OLD_VS_NEW}, which needs a baseline jar. */
    public static List<String> defaultIds() {
        return ALL.stream().map(Scenario::id).filter(id -> !id.equals(OLD_VS_NEW)).toList();
    }

    /**
     * The chosen implementations the scale scenario {@code scenario} (waiters and held locks on one server, or the cluster) runs;
     * the others are named in the log.
     */
    static List<LockImplementation> atScale(BenchmarkContext context, String scenario) {
        List<String> runs = scenario.equals(CLUSTER) ? AT_SCALE : AT_SCALE_STANDALONE;
        List<String> skipped = context.implementations().stream().filter(implementation -> !runs.contains(implementation.id()))
                .map(LockImplementation::displayName).toList();
        if (!skipped.isEmpty()) {
            context.log(scenario + ": skipped " + String.join(", ", skipped) + " (it runs " + String.join(", ", runs) + " only)");
        }
        return context.implementations().stream().filter(implementation -> runs.contains(implementation.id())).toList();
    }

    /** @throws IllegalArgumentException naming the unknown id and the known ones */
    public static List<Scenario> select(List<String> ids) {
        List<String> known = ALL.stream().map(Scenario::id).toList();
        for (String id : ids) {
            if (!known.contains(id)) {
                throw new IllegalArgumentException("Unknown scenario '" + id + "' in --scenarios; known: " + String.join(", ", known));
            }
        }
        return ALL.stream().filter(scenario -> ids.contains(scenario.id())).toList();
    }
}
