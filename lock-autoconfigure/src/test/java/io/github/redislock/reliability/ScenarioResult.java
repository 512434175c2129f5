package io.github.redislock.reliability;

import java.util.List;

/** What one safety-checker scenario found; {@link #problems()} empty means it passed. */
record ScenarioResult(String name, String injected, String workers, long sections, int violations, int detectedViolations,
                      long lostUpdates, boolean fencingAvailable, int fencedWrites, List<String> losses, long failures,
                      List<String> failureTypes, long maxFailureMillis, Long recoveryMillis, List<String> notes,
                      List<String> problems, List<String> failureSamples) {

    /** "0", "n detected", or "n detected and fenced" for the report. */
    String violationVerdict() {
        if (violations == 0 && lostUpdates == 0) {
            return "0";
        }
        String counts = violations + " overlap(s), " + lostUpdates + " lost update(s)";
        return fencedWrites > 0 ? counts + ": detected and fenced" : counts + ": detected (LockLostEvent/LockLostException)";
    }

    String fencingVerdict() {
        return fencingAvailable ? fencedWrites + " late write(s) rejected" : "not available (this Locker has no fencing tokens)";
    }

    String summaryLine() {
        return String.format("[safety] %-28s sections=%d violations=%s losses=%d failures=%d%s maxFailure=%dms recovery=%s fencing=%s%s",
                name, sections, violationVerdict(), losses.size(), failures, failureTypes.isEmpty() ? "" : " " + failureTypes,
                maxFailureMillis, recoveryMillis == null ? "-" : recoveryMillis + "ms", fencingVerdict(),
                problems.isEmpty() ? "" : " PROBLEMS=" + problems);
    }
}
