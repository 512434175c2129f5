package io.github.redislock.benchmarks.scenarios;

import java.util.List;

/** Every scenario the benchmark knows, in report order. */
public final class Scenarios {

    public static final String UNCONTENDED = "uncontended";
    public static final String CONTENDED = "contended";
    public static final String RENEWAL = "renewal";
    public static final String ANNOTATION = "annotation";

    private static final List<Scenario> ALL = List.of(new UncontendedScenario(), new ContendedScenario(), new RenewalScenario(), new AnnotationScenario());

    private Scenarios() {
    }

    public static List<Scenario> all() {
        return ALL;
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
