package io.github.redislock.sample.demo;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.github.redislock.sample.SampleApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Two instances of the sample service sharing one Redis, each a full application context with its own
 * web server on a random port, in this JVM.
 *
 * <p>Why in one JVM: it starts in seconds and needs no process management, while everything that
 * matters for the demonstration stays separate: each instance has its own Tomcat, connection pool,
 * lock client id and watchdog, and they meet only in Redis, exactly like two processes or two hosts.
 *
 * <p>The first instance starts with the given arguments (so with an embedded Redis when they name
 * none); the second gets the same arguments plus the first one's Redis host and port.
 */
public final class TwoInstances implements AutoCloseable {

    /** Quiet, random-port defaults; arguments override them. */
    private static final Map<String, Object> DEFAULTS = Map.of(
            "server.port", "0",
            "spring.main.banner-mode", "off",
            "spring.main.log-startup-info", "false",
            "logging.level.root", "WARN",
            "logging.level.io.github.redislock.sample", "INFO");

    private final List<ConfigurableApplicationContext> contexts;

    private TwoInstances(List<ConfigurableApplicationContext> contexts) {
        this.contexts = contexts;
    }

    /** Starts both instances; if the second fails, the first is closed again. */
    public static TwoInstances start(String... args) {
        return start(args, List.of(), List.of());
    }

    /** Like {@link #start(String...)}, with arguments for one instance alone (the demo's scheduler clocks). */
    public static TwoInstances start(String[] args, List<String> firstOnly, List<String> secondOnly) {
        List<ConfigurableApplicationContext> started = new ArrayList<>();
        try {
            ConfigurableApplicationContext first = startInstance(with(args, firstOnly));
            started.add(first);
            started.add(startInstance(with(withRedisOf(first.getEnvironment(), args), secondOnly)));
            return new TwoInstances(started);
        }
        catch (RuntimeException ex) {
            new TwoInstances(started).close();
            throw ex;
        }
    }

    /** The base address of each instance, e.g. {@code http://127.0.0.1:40123}. */
    public List<URI> baseUris() {
        return contexts.stream()
                .map(context -> URI.create("http://127.0.0.1:"
                        + ((WebServerApplicationContext) context).getWebServer().getPort()))
                .toList();
    }

    /** The instances' Redis as {@code host:port}, or a hint when a URL, Sentinel or Cluster names it. */
    public String redisAddress() {
        Environment environment = contexts.get(0).getEnvironment();
        String host = environment.getProperty("spring.data.redis.host");
        String port = environment.getProperty("spring.data.redis.port");
        if (host == null && port == null) {
            return "the configured Redis (url, sentinel or cluster)";
        }
        return (host == null ? "localhost" : host) + ":" + (port == null ? "6379" : port);
    }

    /** A bean of the first instance. */
    public <T> T firstInstanceBean(Class<T> type) {
        return contexts.get(0).getBean(type);
    }

    /** Closes the second instance, then the first (which stops the embedded Redis if it started one). */
    @Override
    public void close() {
        for (int i = contexts.size() - 1; i >= 0; i--) {
            contexts.get(i).close();
        }
    }

    private static ConfigurableApplicationContext startInstance(String[] args) {
        return new SpringApplicationBuilder(SampleApplication.class)
                .properties(DEFAULTS)
                .run(args);
    }

    private static String[] with(String[] args, List<String> more) {
        List<String> result = new ArrayList<>(Arrays.asList(args));
        result.addAll(more);
        return result.toArray(String[]::new);
    }

    private static String[] withRedisOf(Environment first, String[] args) {
        List<String> result = new ArrayList<>(Arrays.asList(args));
        for (String property : List.of("spring.data.redis.host", "spring.data.redis.port")) {
            String value = first.getProperty(property);
            if (value != null) {
                // Replace, not add: a property given twice on the command line binds as "a,b".
                result.removeIf(arg -> arg.startsWith("--" + property + "="));
                result.add("--" + property + "=" + value);
            }
        }
        return result.toArray(String[]::new);
    }
}
