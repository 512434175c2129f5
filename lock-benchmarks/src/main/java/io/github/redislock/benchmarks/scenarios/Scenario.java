package io.github.redislock.benchmarks.scenarios;

import java.util.List;

import io.github.redislock.benchmarks.report.Row;

/**
 * One scenario of the benchmark. A new one is a new implementation of this interface registered in
 * {@link Scenarios}; the report prints the rows of every scenario in order.
 */
public interface Scenario {

    /** Its name on the command line ({@code --scenarios=...}). */
    String id();

    /** Heading of its table. */
    String title();

    /** What it measures and how, one paragraph for the report. */
    String description(BenchmarkContext context);

    List<Row> run(BenchmarkContext context);
}
