package io.github.redislock.sample.demo;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * What an operator of one instance sees, fetched from its Actuator endpoints over HTTP: while a rush
 * runs, the lock the instance holds and how many of its threads wait; right after it, the lock health
 * and the lock metrics of the Prometheus scrape. Every value printed is one the instance answered.
 */
public final class OperatorView {

    /** The scrape lines worth a glance: counts, maxima and gauges, not sums or the active-wait timer. */
    private static final Pattern SHOWN_METRIC = Pattern.compile(
            "^redis_lock_(acquire_seconds_(count|max)|hold_seconds_(count|max)|held|waiters|lost_total)[{ ].*");
    private static final Pattern GAUGE = Pattern.compile("^redis_lock_(held|waiters) .*");
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final DemoHttp http = new DemoHttp();
    private final ObjectMapper json = new ObjectMapper();
    private final URI instance;

    /** @param instance the base address of the instance to look at */
    public OperatorView(URI instance) {
        this.instance = instance;
    }

    /** The excerpt: what was seen during the rush (null when no lock was held at any moment sampled) and after it. */
    public record Excerpt(URI instance, String locksDuring, List<String> gaugesDuring, String healthAfter,
                          List<String> metricsAfter) {
    }

    /** What the rush returned, and what the operator saw meanwhile and after it. */
    public record Watched<T>(T result, Excerpt excerpt) {
    }

    /**
     * Runs {@code rush} while another thread asks the instance for its locks until it holds one; then
     * reads the health and the scrape.
     */
    public <T> Watched<T> watch(Callable<T> rush) throws Exception {
        DuringRush during = new DuringRush();
        Thread sampler = new Thread(during, "operator-view");
        sampler.setDaemon(true);
        sampler.start();
        T result;
        try {
            result = rush.call();
        }
        finally {
            during.stop = true;
            sampler.join(REQUEST_TIMEOUT.toMillis() * 3);
        }
        String health = pretty(get("/actuator/health/redisLock"));
        List<String> metrics = get("/actuator/prometheus").lines().filter(line -> SHOWN_METRIC.matcher(line).matches()).toList();
        return new Watched<>(result, new Excerpt(instance, during.locks, during.gauges, health, metrics));
    }

    /** The excerpt as the demo prints it. */
    public static String format(Excerpt excerpt) {
        StringBuilder out = new StringBuilder();
        out.append("What an operator sees on ").append(excerpt.instance()).append(" (the first instance):\n\n");
        if (excerpt.locksDuring() == null) {
            out.append("During the rush: GET /actuator/locks never caught this instance holding the lock.\n");
        }
        else {
            out.append("During the rush, at a moment this instance held the lock:\n");
            out.append("GET /actuator/locks\n").append(excerpt.locksDuring()).append('\n');
            out.append("GET /actuator/prometheus (the gauges, a moment later)\n");
            excerpt.gaugesDuring().forEach(line -> out.append(line).append('\n'));
        }
        out.append("\nRight after the rush:\n");
        out.append("GET /actuator/health/redisLock\n").append(excerpt.healthAfter()).append('\n');
        out.append("GET /actuator/prometheus (redis_lock_* counts, maxima and gauges)\n");
        excerpt.metricsAfter().forEach(line -> out.append(line).append('\n'));
        return out.toString();
    }

    /** Polls the locks endpoint until it lists a lock or the rush is over. */
    private final class DuringRush implements Runnable {
        volatile boolean stop;
        volatile String locks;
        volatile List<String> gauges = List.of();

        @Override
        public void run() {
            try {
                while (!stop) {
                    String answer = get("/actuator/locks");
                    if (json.readTree(answer).path("locks").size() > 0) {
                        List<String> seen = new ArrayList<>();
                        get("/actuator/prometheus").lines().filter(line -> GAUGE.matcher(line).matches()).forEach(seen::add);
                        gauges = seen;
                        locks = pretty(answer);
                        return;
                    }
                    Thread.sleep(10);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            catch (RuntimeException ex) {
                // The excerpt says nothing was caught; the rush itself is unaffected.
            }
        }
    }

    private String get(String path) {
        try {
            return http.send(HttpRequest.newBuilder(instance.resolve(path)).timeout(REQUEST_TIMEOUT).GET().build());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted during GET " + path, ex);
        }
    }

    private String pretty(String answer) {
        try {
            JsonNode tree = json.readTree(answer);
            return json.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
        }
        catch (JacksonException ex) {
            return answer;
        }
    }
}
