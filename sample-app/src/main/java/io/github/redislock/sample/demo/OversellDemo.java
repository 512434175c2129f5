package io.github.redislock.sample.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import io.github.redislock.sample.demo.PurchaseRush.Outcome;
import io.github.redislock.sample.report.ReportRuns;

/**
 * {@code --demo}: two instances of the service share one Redis; 500 customers rush 100 units through
 * the unlocked endpoint, then through the locked one, then through the one locked with the
 * {@code ReactiveLocker}; then both run the nightly report every second, their scheduler clocks
 * 200 ms apart. A table shows what each endpoint sold and how often the report ran, and an
 * excerpt of the first instance's Actuator endpoints shows what an operator sees of the locked rush.
 */
public final class OversellDemo {

    /** The command-line argument that runs the demonstration instead of the service. */
    public static final String ARGUMENT = "--demo";

    static final long INITIAL_STOCK = 100;
    static final int PURCHASES = 500;
    static final List<String> ENDPOINTS = List.of("/orders/unsafe", "/orders/locked", "/orders/reactive");

    private OversellDemo() {
    }

    /**
     * Runs the demonstration; every other argument goes to both application instances.
     *
     * @return the process exit code: 0 when both locked endpoints sold exactly the stock, 1 otherwise
     */
    public static int run(String[] args) {
        String[] applicationArgs = Stream.concat(Arrays.stream(args).filter(arg -> !arg.equals(ARGUMENT)), ScheduledReport.ARGUMENTS.stream())
                .toArray(String[]::new);
        PrintStream out = System.out;
        List<Outcome> outcomes = new ArrayList<>();
        OperatorView.Excerpt operatorExcerpt = null;
        ScheduledReport.Outcome scheduled;
        try (TwoInstances instances = TwoInstances.start(applicationArgs, ScheduledReport.FIRST_ONLY, ScheduledReport.SECOND_ONLY)) {
            out.println();
            out.println("Two instances " + instances.baseUris() + " share Redis at " + instances.redisAddress() + ".");
            out.printf(Locale.ROOT, "Each endpoint: stock %d, then %d concurrent purchases of one unit, "
                    + "alternating between the instances.%n", INITIAL_STOCK, PURCHASES);
            PurchaseRush rush = new PurchaseRush(instances.baseUris());
            String run = Long.toString(System.currentTimeMillis(), 36);
            OperatorView operator = new OperatorView(instances.baseUris().get(0));
            for (String endpoint : ENDPOINTS) {
                String sku = "demo-" + endpoint.substring(endpoint.lastIndexOf('/') + 1) + "-" + run;
                if (endpoint.endsWith("/locked")) {
                    OperatorView.Watched<Outcome> watched = operator.watch(() -> rush.run(endpoint, sku, INITIAL_STOCK, PURCHASES));
                    outcomes.add(watched.result());
                    operatorExcerpt = watched.excerpt();
                }
                else {
                    outcomes.add(rush.run(endpoint, sku, INITIAL_STOCK, PURCHASES));
                }
            }
            scheduled = ScheduledReport.run(instances.firstInstanceBean(ReportRuns.class));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            out.println("Interrupted");
            return 1;
        }
        catch (Exception ex) {
            out.println("The demonstration failed: " + ex);
            return 1;
        }
        out.println();
        out.print(table(outcomes, scheduled));
        out.print(ScheduledReport.legend(scheduled));
        out.println();
        int exitCode = verdict(outcomes, out) | verdict(scheduled, out);
        out.println();
        out.print(OperatorView.format(operatorExcerpt));
        return exitCode;
    }

    /** The result table, one row per endpoint and one for the scheduled report. */
    static String table(List<Outcome> outcomes, ScheduledReport.Outcome scheduled) {
        String format = "| %-21s | %15s | %10s | %10s | %8s |%n";
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, format, "endpoint", "orders accepted", "units sold", "stock left", "oversold"));
        table.append(String.format(Locale.ROOT, format, "-".repeat(21), "-".repeat(15), "-".repeat(10), "-".repeat(10), "-".repeat(8)));
        for (Outcome outcome : outcomes) {
            table.append(String.format(Locale.ROOT, format, "POST " + outcome.endpoint(), outcome.accepted(),
                    outcome.unitsSold(), outcome.stockLeft(), outcome.oversold() ? "YES" : "no"));
        }
        if (scheduled != null) {
            table.append(ScheduledReport.row(scheduled, format));
        }
        return table.toString();
    }

    private static int verdict(ScheduledReport.Outcome scheduled, PrintStream out) {
        out.printf(Locale.ROOT, "@Scheduled: without holdAtLeast %d runs in %d slots (%d slots twice); with it %d runs (%d slots twice, %d missed).%n",
                scheduled.withoutRuns(), scheduled.slots(), scheduled.withoutTwice(), scheduled.withRuns(), scheduled.withTwice(), scheduled.withMissed());
        if (scheduled.withoutTwice() == 0) {
            out.println("  This run ran no slot twice without holdAtLeast; the instances' triggers met too closely to show it.");
        }
        if (!scheduled.exactlyOncePerSlot()) {
            out.println("  UNEXPECTED: with holdAtLeast the report must run exactly once per slot.");
            return 1;
        }
        return 0;
    }

    private static int verdict(List<Outcome> outcomes, PrintStream out) {
        int exitCode = 0;
        for (Outcome outcome : outcomes) {
            out.printf(Locale.ROOT, "%s: %d accepted, %d sold out (409), %d busy (429), %d failed.%n",
                    outcome.endpoint(), outcome.accepted(), outcome.soldOut(), outcome.busy(), outcome.failed());
            boolean locked = !outcome.endpoint().endsWith("/unsafe");
            boolean exact = outcome.unitsSold() == outcome.initialStock() && outcome.stockLeft() == 0
                    && outcome.accepted() == outcome.initialStock();
            if (locked && !exact) {
                out.println("  UNEXPECTED: a locked endpoint must sell exactly the stock.");
                exitCode = 1;
            }
            if (!locked && !outcome.oversold()) {
                out.println("  This run did not oversell; raise sample.read-write-delay to widen the race window.");
            }
        }
        return exitCode;
    }
}
