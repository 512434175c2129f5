package io.github.redislock.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

import io.github.redislock.benchmarks.client.ClientCostMain;
import io.github.redislock.benchmarks.report.MarkdownReport;

import org.openjdk.jmh.runner.RunnerException;

/**
 * {@code java -jar lock-benchmarks.jar [options]}: measures every lock implementation on one local
 * Redis it starts itself, prints the report and writes it to {@code docs/benchmarks.md}.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws IOException, RunnerException {
        if (args.length > 0 && args[0].equals("--client-cost")) {
            ClientCostMain.run(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        BenchmarkOptions options;
        try {
            options = BenchmarkOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.println(BenchmarkOptions.USAGE);
            return;
        }
        Thread.setDefaultUncaughtExceptionHandler(BenchmarkMain::reportStrayFailure);
        MarkdownReport report = new Benchmark(options, commandLine(args), System.err).run();
        System.out.println(report.render());
        Path output = options.output();
        if (output != null) {
            report.writeTo(output);
            System.err.println("Report written to " + output);
        }
        System.exit(0); // some peers leave non-daemon threads behind (lock4j's renewal timers)
    }

    /** Background threads of a library (lock4j's renewal timers) failing after their client closed: one line each, not a stack trace. */
    private static void reportStrayFailure(Thread thread, Throwable failure) {
        System.err.println("Background thread " + thread.getName() + " of a closed client failed: " + failure);
    }

    private static String commandLine(String[] args) {
        return ("java -jar " + BenchmarkOptions.JAR + " " + String.join(" ", args)).trim();
    }
}
