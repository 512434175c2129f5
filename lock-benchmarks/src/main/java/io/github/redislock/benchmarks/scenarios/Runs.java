package io.github.redislock.benchmarks.scenarios;

import io.github.redislock.benchmarks.report.Row;

/** How a row records what went wrong, so a failing library marks its row instead of ending the run. */
final class Runs {

    private Runs() {
    }

    static void noteProblems(Row row, TimedWorkers.Outcome outcome) {
        if (outcome.failure() != null) {
            row.addNote("FAILED: " + describe(outcome.failure()));
        }
        if (outcome.stuck() > 0) {
            row.addNote(outcome.stuck() + " thread(s) still waiting 60 s after the stop");
        }
    }

    static void failed(BenchmarkContext context, Row row, RuntimeException e) {
        context.log("  failed: " + describe(e));
        row.addNote("FAILED: " + describe(e));
    }

    static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
        return message.replace('|', '/').replace('\n', ' ');
    }
}
