package io.github.redislock.benchmarks.scenarios;

import java.util.List;

import io.github.redislock.benchmarks.clients.Implementations;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.report.Row;

/**
 * Old against new: the uncontended pair of an earlier commit's library ({@code --baseline-jar}) and of the
 * current one, measured alternately in one JVM on one Redis. On a shared machine the load drifts over
 * minutes; measuring the two back to back at each thread count, and swapping which goes first every
 * round, puts both under the same drift instead of giving it to whichever ran later.
 */
final class OldVsNewScenario implements Scenario {

    @Override
    public String id() {
        return Scenarios.OLD_VS_NEW;
    }

    @Override
    public String title() {
        return "Old against new: the uncontended pair of an earlier commit and of this one, alternately";
    }

    @Override
    public String description(BenchmarkContext context) {
        return "The library of an earlier commit (`--baseline-jar`, loaded into a class loader of its own: its classes and "
                + "scripts, this run's Spring Data Redis and Lettuce) and the current one, both wired as scenario 1 wires "
                + "redis-lock, in " + context.options().roundsOf(id()) + " rounds on this run's one Redis. In a round, at each T the two "
                + "run one measured row each, back to back; odd rounds start with the baseline, even rounds with the current "
                + "library. Figures as in scenario 1 (client CPU: this JVM's, in which the other library sits idle). The summary "
                + "gives the means over the rounds and the median and range of the per-round ratios new / old.";
    }

    @Override
    public List<Row> run(BenchmarkContext context) {
        LockImplementation current = pick(context, "redis-lock");
        LockImplementation baseline = pick(context, Implementations.BASELINE);
        return Rounds.measure(context, id(), context.options().roundsOf(id()), List.of(baseline, current), context.options().uncontendedThreads(),
                (implementation, threads) -> UncontendedScenario.measure(context, id(), implementation, threads));
    }

    private static LockImplementation pick(BenchmarkContext context, String id) {
        return context.implementations().stream().filter(implementation -> implementation.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--scenarios=" + Scenarios.OLD_VS_NEW + " needs " + id + " in --implementations"));
    }
}
