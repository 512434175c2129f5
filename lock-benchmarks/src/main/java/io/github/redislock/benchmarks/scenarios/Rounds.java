package io.github.redislock.benchmarks.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.report.Row;

/**
 * Measuring in rounds ({@code --rounds}; the uncontended, contended, waiters, held-locks and old-against-new scenarios). On a shared
 * machine the load, the JIT and the machine's own state drift over a run: measured once each, one implementation
 * after the other, whichever ran early or late took that drift alone. So each round measures, setup by setup (a
 * thread count, or threads and instances), every implementation once, back to back, and the order of the
 * implementations turns by one place each round: no implementation is always first, or always right after the
 * same one. The report reads the median of the rounds ({@link io.github.redislock.benchmarks.report.RoundMedians}).
 */
final class Rounds {

    private Rounds() {
    }

    /** The order of round {@code round} (from 1): {@code implementations} turned left by {@code round - 1} places; round 1 keeps the given order. */
    static <T> List<T> order(List<T> implementations, int round) {
        if (implementations.isEmpty()) {
            return List.of();
        }
        int shift = (round - 1) % implementations.size();
        List<T> order = new ArrayList<>(implementations.subList(shift, implementations.size()));
        order.addAll(implementations.subList(0, shift));
        return order;
    }

    /**
     * {@code rounds} rounds, each measuring every implementation once per setup (a setup given twice, e.g. one instance
     * with {@code --instances=1}, once), in the round's {@link #order}; the rows in the order they were measured, each
     * with its {@link Row#round}.
     */
    static <S> List<Row> measure(BenchmarkContext context, String scenario, int rounds, List<LockImplementation> implementations, List<S> setups,
                                 BiFunction<LockImplementation, S, Row> measure) {
        List<Row> rows = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            List<LockImplementation> order = order(implementations, round);
            if (rounds > 1) {
                context.log(scenario + ": round " + round + " of " + rounds + ", in this order: "
                        + String.join(", ", order.stream().map(LockImplementation::displayName).toList()));
            }
            for (S setup : setups.stream().distinct().toList()) {
                for (LockImplementation implementation : order) {
                    Row row = measure.apply(implementation, setup);
                    row.round = round;
                    rows.add(row);
                }
            }
        }
        return rows;
    }
}
