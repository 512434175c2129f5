package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

/** Prints, checks and tabulates scenario results. */
final class ScenarioTable {

    private ScenarioTable() {
    }

    /** Prints the scenario's summary line, keeps it for the report, and fails on any problem the checker found. */
    static ScenarioResult record(List<ScenarioResult> results, ScenarioResult result) {
        System.out.println(result.summaryLine());
        synchronized (results) {
            results.add(result);
        }
        assertThat(result.problems()).as("problems found by the safety checker in scenario '%s' (failure samples: %s)",
                result.name(), result.failureSamples()).isEmpty();
        assertThat(result.sections()).isPositive();
        return result;
    }

    static void write(String section, List<ScenarioResult> results) {
        if (results.isEmpty()) {
            return;
        }
        StringBuilder table = new StringBuilder(ReliabilityReport.runLine()).append("\n\n")
                .append("| scenario | injected | critical sections | violations | fencing check (C) | lock losses reported | failed operations (slowest) | recovery | result |\n")
                .append("|---|---|---|---|---|---|---|---|---|\n");
        for (ScenarioResult r : results) {
            table.append("| ").append(r.name())
                    .append(" | ").append(r.injected()).append(r.notes().isEmpty() ? "" : " (" + String.join("; ", r.notes()) + ")")
                    .append(" | ").append(r.sections())
                    .append(" | ").append(r.violationVerdict())
                    .append(" | ").append(r.fencingVerdict())
                    .append(" | ").append(r.losses().size())
                    .append(" | ").append(r.failures()).append(r.failures() == 0 ? "" : " " + r.failureTypes() + " (" + r.maxFailureMillis() + " ms)")
                    .append(" | ").append(r.recoveryMillis() == null ? "-" : r.recoveryMillis() + " ms")
                    .append(" | ").append(r.problems().isEmpty() ? "pass" : "FAIL: " + String.join("; ", r.problems()).replace('\n', ' '))
                    .append(" |\n");
        }
        ReliabilityReport.write(section, table.toString());
    }
}
