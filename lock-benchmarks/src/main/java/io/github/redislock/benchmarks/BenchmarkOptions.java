package io.github.redislock.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.benchmarks.clients.Implementations;
import io.github.redislock.benchmarks.scenarios.Scenarios;

import org.springframework.boot.SpringBootVersion;

/**
 * The command line. Defaults give a full run that finishes within 20 minutes on 2 cores (about 5 of them the scale scenarios);
 * {@code --quick} shrinks every duration for smoke runs (its figures are not for reading). {@code rounds} is
 * {@code --rounds} as given, 0 when not given: {@link #roundsOf} says what each scenario makes of it.
 */
public record BenchmarkOptions(
        Duration measure, Duration warmup, Duration jvmWarmup, Duration renewalHold, int renewalLocks, Duration renewalWatchdogTimeout,
        Duration watchdogTimeout, List<Integer> uncontendedThreads, List<Integer> contendedThreads,
        int instances, List<String> implementations, List<String> scenarios, int ceilingConnections, int ceilingInFlight,
        int jmhWarmupIterations, int jmhIterations, Duration jmhIterationTime,
        int waiterInstances, int waitersPerInstance,
        int heldLocks, int heldInstances, Duration heldHold, List<Integer> clusterThreads,
        Path baselineJar, String baselineLabel, int rounds,
        Path output, String note, boolean help) {

    /** This jar, as the commands in docs/benchmarks.md name it: these sources also build the Boot 3.5 line's (lock-benchmarks-boot3). */
    public static final String JAR = SpringBootVersion.getVersion().startsWith("3.")
            ? "lock-benchmarks-boot3/target/lock-benchmarks-boot3.jar" : "lock-benchmarks/target/lock-benchmarks.jar";

    public static final String USAGE = """
            java -jar %1$s [options]
              --seconds-per-row=S          measured seconds of each row (default 10)
              --warmup-seconds=S           unmeasured seconds before each row (default 1.5)
              --jvm-warmup-seconds=S       unmeasured seconds per implementation before the first row, half on own keys, half on one (default 3),
                                           again (at most 4 rounds) while the JIT compiled for over 5%% of the round
              --renewal-seconds=S          how long scenario 3 holds its locks (default 30)
              --renewal-locks=N            locks held in scenario 3 (default 1000)
              --renewal-watchdog-seconds=S watchdog timeout / renewal lease in scenario 3, same for all (default 3)
              --watchdog-seconds=S         watchdog timeout and fixed lease in scenarios 1 and 2 (default 30)
              --threads=1,8,64             thread counts of scenario 1
              --contended-threads=8,64     thread counts of scenario 2
              --instances=N                client instances the spread rows of scenario 2 use (default 8)
              --implementations=a,b        of: %2$s (default all)
                                           (ceiling also brings scenario 1's rows of redis-lock's scripts alone)
              --scenarios=a,b              of: %3$s (default all)
              --ceiling-connections=N      connections of the ceiling row (default 8)
              --ceiling-in-flight=N        pairs in flight in the ceiling row (default 256)
              --jmh-warmup-iterations=N    unmeasured JMH iterations per benchmark of scenario 4 (default 3)
              --jmh-iterations=N           measured JMH iterations per benchmark of scenario 4 (default 10)
              --jmh-iteration-seconds=S    length of one JMH iteration (default 1)
              --waiter-instances=N         client instances of the waiters scenario (default 8)
              --waiters-per-instance=N     threads queued per instance in the waiters scenario (default 1250)
              --held-locks=N               locks held in the held-locks scenario, spread over the instances (default 100000)
              --held-instances=N           client instances of the held-locks scenario (default 4)
              --held-seconds=S             how long the held-locks scenario holds them (default 10)
              --cluster-threads=8,64       thread counts of the cluster scenario
              --baseline-jar=PATH          an earlier commit's lock-autoconfigure jar: implementation %4$s, and
                                           the %5$s scenario (not run by default) alternates it with redis-lock
              --baseline-label=TEXT        how the report names that commit, e.g. its short hash (default: the jar's file name)
              --rounds=N                   rounds of the %7$s, %8$s, %9$s, %10$s and %6$s scenarios (default 1; %6$s 4): a round measures every
                                           implementation once at each setup, back to back, in an order turned by one place each round;
                                           the report gives each figure's median over the rounds, the rounds' range beside it
              --output=PATH|none           report file; its hand-written parts are kept (default docs/benchmarks.md)
              --note=TEXT                  a remark printed with the run's facts (e.g. "shared machine")
              --quick                      1.5 s rows, 0.5 s warm-up, 4 s renewal, 2+3 JMH iterations of 0.5 s,
                                           2 x 50 waiters, 1,000 held locks on 2 instances for 2.5 s, cluster at T=8: a smoke run
              --help
            java -jar %1$s --client-cost [iterations]
                                           JMH with -prof gc: the client's own work per uncontended pair, no Redis
            """.formatted(JAR, String.join(",", Implementations.ids()), String.join(",", Scenarios.all().stream().map(s -> s.id()).toList()),
            Implementations.BASELINE, Scenarios.OLD_VS_NEW, Scenarios.OLD_VS_NEW, Scenarios.UNCONTENDED, Scenarios.CONTENDED, Scenarios.WAITERS, Scenarios.HELD_LOCKS);

    /** @throws IllegalArgumentException naming the option that is unknown or malformed */
    public static BenchmarkOptions parse(String... args) {
        Map<String, String> given = new LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("Unexpected argument '" + arg + "'; options look like --name=value. Usage:\n" + USAGE);
            }
            int equals = arg.indexOf('=');
            given.put(equals < 0 ? arg.substring(2) : arg.substring(2, equals), equals < 0 ? "true" : arg.substring(equals + 1));
        }
        boolean quick = Boolean.parseBoolean(given.remove("quick"));
        Reader read = new Reader(given);
        BenchmarkOptions options = new BenchmarkOptions(
                read.seconds("seconds-per-row", quick ? 1.5 : 10),
                read.seconds("warmup-seconds", quick ? 0.5 : 1.5),
                read.seconds("jvm-warmup-seconds", quick ? 0.5 : 3),
                read.seconds("renewal-seconds", quick ? 4 : 30),
                read.positiveInt("renewal-locks", 1000),
                read.seconds("renewal-watchdog-seconds", 3),
                read.seconds("watchdog-seconds", 30),
                read.ints("threads", List.of(1, 8, 64)),
                read.ints("contended-threads", List.of(8, 64)),
                read.positiveInt("instances", 8),
                read.list("implementations", Implementations.defaultIds()),
                read.list("scenarios", Scenarios.defaultIds()),
                read.positiveInt("ceiling-connections", 8),
                read.positiveInt("ceiling-in-flight", 256),
                read.positiveInt("jmh-warmup-iterations", quick ? 2 : 3),
                read.positiveInt("jmh-iterations", quick ? 3 : 10),
                read.seconds("jmh-iteration-seconds", quick ? 0.5 : 1),
                read.positiveInt("waiter-instances", quick ? 2 : 8),
                read.positiveInt("waiters-per-instance", quick ? 50 : 1250),
                read.positiveInt("held-locks", quick ? 1000 : 100_000),
                read.positiveInt("held-instances", quick ? 2 : 4),
                read.seconds("held-seconds", quick ? 2.5 : 10),
                read.ints("cluster-threads", quick ? List.of(8) : List.of(8, 64)),
                read.path("baseline-jar", null),
                read.text("baseline-label", ""),
                given.containsKey("rounds") ? read.positiveInt("rounds", 1) : 0,
                read.path("output", Path.of("docs", "benchmarks.md")),
                read.text("note", ""),
                Boolean.parseBoolean(read.text("help", "false")));
        if (!given.isEmpty()) {
            throw new IllegalArgumentException("Unknown option(s) --" + String.join(", --", given.keySet()) + ". Usage:\n" + USAGE);
        }
        Implementations.validate(options.implementations, options.baselineJar != null);
        Scenarios.select(options.scenarios);
        if (options.scenarios.contains(Scenarios.OLD_VS_NEW)
                && !(options.implementations.contains("redis-lock") && options.implementations.contains(Implementations.BASELINE))) {
            throw new IllegalArgumentException("--scenarios=" + Scenarios.OLD_VS_NEW + " alternates redis-lock and " + Implementations.BASELINE
                    + ": give --baseline-jar and --implementations=redis-lock," + Implementations.BASELINE);
        }
        return options;
    }

    /**
     * The rounds {@code scenario} measures in: {@code --rounds}, else 4 for {@value Scenarios#OLD_VS_NEW} (its point is the
     * alternation) and 1 for the others, as before rounds were offered for them.
     */
    public int roundsOf(String scenario) {
        return rounds > 0 ? rounds : scenario.equals(Scenarios.OLD_VS_NEW) ? 4 : 1;
    }

    /** How the report names the baseline commit: {@code --baseline-label}, else the jar's file name. */
    public String baselineName() {
        return !baselineLabel.isBlank() || baselineJar == null ? baselineLabel : baselineJar.getFileName().toString();
    }

    /** Lease of scenario 1 and 2 locks in libraries whose everyday {@code lock} has no watchdog: the watchdog timeout. */
    public Duration lease() {
        return watchdogTimeout;
    }

    /** How often the renewing libraries renew in scenario 3: a third of the watchdog timeout. */
    public Duration renewalTick() {
        return renewalWatchdogTimeout.dividedBy(3);
    }

    private static final class Reader {

        private final Map<String, String> given;

        Reader(Map<String, String> given) {
            this.given = given;
        }

        Duration seconds(String name, double fallback) {
            double value = number(name, fallback);
            if (value <= 0) {
                throw new IllegalArgumentException("--" + name + " must be positive, but was " + value);
            }
            return Duration.ofMillis(Math.round(value * 1000));
        }

        int positiveInt(String name, int fallback) {
            double value = number(name, fallback);
            if (value < 1 || value != Math.rint(value)) {
                throw new IllegalArgumentException("--" + name + " must be a whole number of at least 1, but was " + value);
            }
            return (int) value;
        }

        List<Integer> ints(String name, List<Integer> fallback) {
            String value = given.remove(name);
            if (value == null) {
                return fallback;
            }
            try {
                List<Integer> parsed = Arrays.stream(value.split(",")).map(String::trim).map(Integer::parseInt).toList();
                if (parsed.stream().anyMatch(n -> n < 1)) {
                    throw new NumberFormatException("below 1");
                }
                return parsed;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " must be a comma-separated list of positive whole numbers, but was '" + value + "'");
            }
        }

        List<String> list(String name, List<String> fallback) {
            String value = given.remove(name);
            return value == null ? fallback : Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        }

        Path path(String name, Path fallback) {
            String value = given.remove(name);
            if (value == null) {
                return fallback;
            }
            return value.equals("none") ? null : Path.of(value);
        }

        String text(String name, String fallback) {
            String value = given.remove(name);
            return value == null ? fallback : value;
        }

        private double number(String name, double fallback) {
            String value = given.get(name);
            if (value == null) {
                return fallback;
            }
            try {
                return Double.parseDouble(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " must be a number, but was '" + value + "'");
            } finally {
                given.remove(name);
            }
        }
    }
}
