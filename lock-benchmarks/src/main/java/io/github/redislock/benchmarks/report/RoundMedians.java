package io.github.redislock.benchmarks.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Rows measured in rounds ({@code --rounds}) reduced to one row per implementation and setup, whose every figure
 * is the median of that figure over the rounds. The median rather than the mean, because one round caught by a
 * burst of load on a shared machine moves a mean far more; and one row per implementation rather than its best
 * round, because the best of several noisy figures reads high, and more so for a peer with two variants (the
 * registry's spin and pub/sub) than for one with one. Each figure has its own median, so a row's pairs/s and its
 * CPU per pair may come from different rounds; the rounds' own rows stay with the median row ({@link Row#rounds}),
 * and the report prints their range beside it.
 */
public final class RoundMedians {

    private RoundMedians() {
    }

    /**
     * {@code rows} with those of {@code scenarios} grouped per implementation and setup (threads, instances, variant),
     * each group of more than one round replaced by its median row. The groups are put in the order of a run of one
     * round: implementations in the order their first row was measured (round 1 is not rotated), then setups in the
     * order they were first measured. The rows of other scenarios keep their places.
     */
    public static List<Row> of(List<Row> rows, List<String> scenarios) {
        List<Row> result = new ArrayList<>();
        List<String> done = new ArrayList<>();
        for (Row row : rows) {
            if (!scenarios.contains(row.scenario)) {
                result.add(row);
            } else if (!done.contains(row.scenario)) {
                done.add(row.scenario);
                result.addAll(medians(rows.stream().filter(r -> r.scenario.equals(row.scenario)).toList()));
            }
        }
        return result;
    }

    /** The median of the values that are numbers (NaN, a figure a row did not measure, left out); NaN when there is none. */
    public static double median(List<Double> values) {
        List<Double> sorted = values.stream().filter(value -> !value.isNaN()).sorted().toList();
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    private static List<Row> medians(List<Row> scenarioRows) {
        Map<List<Object>, List<Row>> groups = new LinkedHashMap<>();
        List<String> implementations = new ArrayList<>();
        List<List<Object>> setups = new ArrayList<>();
        for (Row row : scenarioRows) {
            groups.computeIfAbsent(List.of(row.implementationId, row.threads, row.instances, row.variant), key -> new ArrayList<>()).add(row);
            if (!implementations.contains(row.implementationId)) {
                implementations.add(row.implementationId);
            }
            if (!setups.contains(setup(row))) {
                setups.add(setup(row));
            }
        }
        return groups.values().stream()
                .sorted(Comparator.<List<Row>>comparingInt(group -> implementations.indexOf(group.get(0).implementationId))
                        .thenComparingInt(group -> setups.indexOf(setup(group.get(0)))))
                .map(group -> group.size() == 1 ? group.get(0) : medianRow(group))
                .toList();
    }

    private static List<Object> setup(Row row) {
        return List.of(row.threads, row.instances, row.variant);
    }

    /**
     * One row of the medians of {@code rounds}' figures. Its note names each round that noted something (a FAILED or
     * VIOLATED round marks the median row too), or says once what every round noted alike; mutual-exclusion violations are added up, never a median.
     */
    static Row medianRow(List<Row> rounds) {
        Row first = rounds.get(0);
        Row row = new Row(first.scenario, first.implementationId, first.implementation, first.threads, first.instances);
        row.variant = first.variant;
        row.rounds = List.copyOf(rounds);
        row.opsPerSecond = median(rounds, r -> r.opsPerSecond);
        row.p50Micros = median(rounds, r -> r.p50Micros);
        row.p99Micros = median(rounds, r -> r.p99Micros);
        row.commandsPerOp = median(rounds, r -> r.commandsPerOp);
        row.redisCpuShare = median(rounds, r -> r.redisCpuShare);
        row.clientCpuMicrosPerOp = median(rounds, r -> r.clientCpuMicrosPerOp);
        row.redisCpuMicrosPerOp = median(rounds, r -> r.redisCpuMicrosPerOp);
        row.handOffP50Micros = median(rounds, r -> r.handOffP50Micros);
        row.handOffP99Micros = median(rounds, r -> r.handOffP99Micros);
        row.minFairShare = median(rounds, r -> r.minFairShare);
        row.sameThreadShare = median(rounds, r -> r.sameThreadShare);
        row.minThreadOps = medianCount(rounds, r -> r.minThreadOps);
        row.maxThreadOps = medianCount(rounds, r -> r.maxThreadOps);
        row.heldLocks = first.heldLocks;
        row.renewalCallsGoal = first.renewalCallsGoal;
        row.takeSeconds = median(rounds, r -> r.takeSeconds);
        row.releaseSeconds = median(rounds, r -> r.releaseSeconds);
        row.redisBytesPerItem = median(rounds, r -> r.redisBytesPerItem);
        row.scriptCallsPerTick = median(rounds, r -> r.scriptCallsPerTick);
        row.renewalTicks = median(rounds, r -> r.renewalTicks);
        row.commandsPerSecond = median(rounds, r -> r.commandsPerSecond);
        row.scriptCallsPerSecond = median(rounds, r -> r.scriptCallsPerSecond);
        row.clientCpuMillisPerSecond = median(rounds, r -> r.clientCpuMillisPerSecond);
        row.threadsAdded = rounds.stream().mapToInt(r -> r.threadsAdded).max().orElse(Integer.MIN_VALUE); // the most any round added
        row.servedOnce = rounds.stream().mapToLong(r -> r.servedOnce).min().orElse(-1); // a waiter one round did not serve once shows
        row.outOfQueueOrder = rounds.stream().mapToLong(r -> r.outOfQueueOrder).max().orElse(-1);
        row.keysLeft = rounds.stream().mapToLong(r -> r.keysLeft).max().orElse(-1); // a key one round left is never a median away
        row.violations = rounds.stream().allMatch(r -> r.violations < 0) ? -1 : rounds.stream().mapToLong(r -> Math.max(0, r.violations)).sum();
        if (rounds.stream().map(r -> r.note).distinct().count() == 1) { // what every round says (e.g. "looping"), said once
            row.addNote(first.note);
        } else {
            rounds.stream().filter(r -> !r.note.isEmpty()).forEach(r -> row.addNote("round " + r.round + ": " + r.note));
        }
        return row;
    }

    private static double median(List<Row> rounds, ToDoubleFunction<Row> figure) {
        return median(rounds.stream().map(figure::applyAsDouble).toList());
    }

    /** The median of a count that is -1 where not measured; -1 when no round measured it. */
    private static long medianCount(List<Row> rounds, ToLongFunction<Row> count) {
        double median = median(rounds, r -> count.applyAsLong(r) < 0 ? Double.NaN : count.applyAsLong(r));
        return Double.isNaN(median) ? -1 : Math.round(median);
    }
}
