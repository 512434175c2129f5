package io.github.redislock.sample.demo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.github.redislock.sample.report.ReportRuns;

/**
 * The demo's fourth row: both instances schedule the nightly report every second, the second one's
 * scheduler clock {@link #SKEW} behind the first's; over {@link #SLOTS} slots it counts the runs of the
 * report ({@code holdAtLeast} = {@link #HOLD_AT_LEAST}) and of its twin without it.
 */
final class ScheduledReport {

    static final int SLOTS = 8;
    static final Duration SKEW = Duration.ofMillis(200);
    static final String HOLD_AT_LEAST = "500ms";

    /** What the instances need: the report every second, a lock kept 500 ms, and the rig of {@link SkewedScheduler}. */
    static final List<String> ARGUMENTS = List.of("--sample.report.cron=* * * * * *", "--sample.report.hold-at-least=" + HOLD_AT_LEAST);
    static final List<String> FIRST_ONLY = List.of("--" + SkewedScheduler.OFFSET + "=0ms");
    static final List<String> SECOND_ONLY = List.of("--" + SkewedScheduler.OFFSET + "=-" + SKEW.toMillis() + "ms");

    /**
     * @param withoutRuns runs of the twin without holdAtLeast in the slots
     * @param withRuns    runs of the report in the slots
     */
    record Outcome(int slots, int withoutRuns, int withoutTwice, int withRuns, int withTwice, int withMissed) {

        boolean exactlyOncePerSlot() {
            return withRuns == slots && withTwice == 0 && withMissed == 0;
        }
    }

    private ScheduledReport() {
    }

    /** Waits for {@link #SLOTS} full slots from now and counts what ran in them. */
    static Outcome run(ReportRuns runs) throws InterruptedException {
        long firstSlot = System.currentTimeMillis() / 1000 + 1;
        long lastSlot = firstSlot + SLOTS - 1;
        // The second instance fires each slot SKEW after the first; give its last run a moment to finish.
        Thread.sleep(Math.max(0, (lastSlot + 1) * 1000 + SKEW.toMillis() + 300 - System.currentTimeMillis()));
        Map<Long, Integer> without = bySlot(runs.runs(SkewedScheduler.CONTROL), firstSlot, lastSlot);
        Map<Long, Integer> with = bySlot(runs.runs("nightly-report"), firstSlot, lastSlot);
        runs.forget(SkewedScheduler.CONTROL); // the twin runs only in the demo: leave nothing of it in Redis
        return new Outcome(SLOTS, sum(without), twice(without), sum(with), twice(with),
                (int) with.values().stream().filter(count -> count == 0).count());
    }

    static String row(Outcome outcome, String format) {
        return String.format(Locale.ROOT, format, "@Scheduled, " + outcome.slots() + " slots", outcome.withoutRuns() + " -> " + outcome.withRuns() + " runs",
                "-", "-", outcome.withoutTwice() + " -> " + outcome.withTwice());
    }

    static String legend(Outcome outcome) {
        return String.format(Locale.ROOT, "@Scheduled: both instances run the nightly report every second, the second one's scheduler clock %d ms behind;%n"
                + "over %d slots: runs, and slots run twice, without holdAtLeast -> with holdAtLeast = %s.%n", SKEW.toMillis(), outcome.slots(), HOLD_AT_LEAST);
    }

    private static Map<Long, Integer> bySlot(List<String> runs, long firstSlot, long lastSlot) {
        Map<Long, Integer> bySlot = new TreeMap<>();
        for (long slot = firstSlot; slot <= lastSlot; slot++) {
            bySlot.put(slot, 0);
        }
        for (String run : runs) {
            long slot = Long.parseLong(run.substring(0, run.indexOf('|')));
            bySlot.computeIfPresent(slot, (s, count) -> count + 1);
        }
        return bySlot;
    }

    private static int sum(Map<Long, Integer> bySlot) {
        return bySlot.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static int twice(Map<Long, Integer> bySlot) {
        return (int) bySlot.values().stream().filter(count -> count > 1).count();
    }
}
