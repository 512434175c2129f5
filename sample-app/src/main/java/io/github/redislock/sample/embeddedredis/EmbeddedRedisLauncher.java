package io.github.redislock.sample.embeddedredis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import redis.embedded.RedisServer;

/**
 * Starts a private {@code redis-server} (the binary shipped in {@code com.github.codemonstur:embedded-redis})
 * when the application names no Redis, so the sample runs on a machine with only a JDK.
 *
 * <p>Why an environment post-processor: the connection settings must be in place before Spring Boot's
 * Redis auto-configuration reads them, and the decision must see every property source (application
 * properties, command line, environment variables), which are all loaded by the time this runs.
 *
 * <p>"No Redis configured" means none of {@code spring.data.redis.host}, {@code .port}, {@code .url},
 * {@code .sentinel.master}, {@code .sentinel.nodes}, {@code .cluster.nodes} is set: naming only a port
 * is how a second instance joins the first one's embedded Redis. The server listens on 127.0.0.1 and
 * {@code sample.embedded-redis.port} (a free port when unset), keeps nothing on disk, and stops when the
 * application context closes or fails to start, and at JVM exit after the application closed
 * ({@link EmbeddedRedisServer}).
 */
class EmbeddedRedisLauncher implements EnvironmentPostProcessor, Ordered {

    /** Name of the property source that points Spring Data Redis at the embedded server. */
    static final String PROPERTY_SOURCE_NAME = "embeddedRedis";

    static final String PORT_PROPERTY = "sample.embedded-redis.port";

    private static final String HOST = "127.0.0.1";

    private static final List<String> CONNECTION_PROPERTIES = List.of("spring.data.redis.host",
            "spring.data.redis.port", "spring.data.redis.url", "spring.data.redis.sentinel.master",
            "spring.data.redis.sentinel.nodes", "spring.data.redis.cluster.nodes");

    private final Log log;

    EmbeddedRedisLauncher(DeferredLogFactory logFactory) {
        this.log = logFactory.getLog(EmbeddedRedisLauncher.class);
    }

    /** After the config data post-processor, so application.properties and profiles are already loaded. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (environment.getPropertySources().contains(PROPERTY_SOURCE_NAME)) {
            return;
        }
        String configured = configuredConnectionProperty(environment);
        if (configured != null) {
            log.debug("Redis is configured (" + configured + "); no embedded Redis started");
            return;
        }
        Binder binder = Binder.get(environment);
        int port = binder.bind(PORT_PROPERTY, Integer.class).orElseGet(EmbeddedRedisLauncher::freePort);
        EmbeddedRedisServer server = start(port);
        application.addListeners(new StopWithApplication(server, port, log));
        environment.getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME,
                Map.of("spring.data.redis.host", HOST, "spring.data.redis.port", port)));
        log.info("No Redis configured (spring.data.redis.host/port/url/sentinel/cluster unset): started an "
                + "embedded redis-server at redis://" + HOST + ":" + port + "; it stops with this application. "
                + "Start another instance against it with --spring.data.redis.port=" + port);
    }

    private static String configuredConnectionProperty(ConfigurableEnvironment environment) {
        for (String property : CONNECTION_PROPERTIES) {
            String value = environment.getProperty(property);
            if (value != null && !value.isBlank()) {
                return property + "=" + value;
            }
        }
        return null;
    }

    private EmbeddedRedisServer start(int port) {
        try {
            List<String> args = RedisServer.newRedisServer()
                    .bind(HOST)
                    .port(port)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .buildCommandArgs();
            // Drain the server's output into our debug log: an unread pipe would eventually block it.
            EmbeddedRedisServer server = new EmbeddedRedisServer(port, args,
                    line -> log.debug("redis-server: " + line), line -> log.debug("redis-server: " + line));
            server.start();
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start the embedded redis-server on " + HOST + ":" + port
                    + " (set " + PORT_PROPERTY + " to another port, or point spring.data.redis.host/port at a "
                    + "running Redis): " + ex.getMessage(), ex);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not find a free port for the embedded redis-server", ex);
        }
    }

    /**
     * Stops the embedded server with the application. Registered as the context's first disposable bean,
     * it is destroyed last, after the web server's graceful shutdown and every bean that still talks to
     * Redis while closing; when startup fails before there is a context to close, the failure event stops it.
     */
    private static final class StopWithApplication implements SmartApplicationListener, DisposableBean {

        private final EmbeddedRedisServer server;
        private final int port;
        private final Log log;

        StopWithApplication(EmbeddedRedisServer server, int port, Log log) {
            this.server = server;
            this.port = port;
            this.log = log;
        }

        @Override
        public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
            return ApplicationPreparedEvent.class.isAssignableFrom(eventType)
                    || ApplicationFailedEvent.class.isAssignableFrom(eventType);
        }

        @Override
        public void onApplicationEvent(ApplicationEvent event) {
            if (event instanceof ApplicationPreparedEvent prepared
                    && prepared.getApplicationContext().getBeanFactory() instanceof DefaultListableBeanFactory beans) {
                beans.registerDisposableBean("embeddedRedisServer", this);
            }
            else if (event instanceof ApplicationFailedEvent) {
                destroy();
            }
        }

        @Override
        public synchronized void destroy() {
            if (!server.isActive()) {
                return;
            }
            try {
                server.stopNow();
                log.info("Stopped the embedded redis-server at " + HOST + ":" + port);
            }
            catch (IOException ex) {
                log.warn("Could not stop the embedded redis-server at " + HOST + ":" + port, ex);
            }
        }
    }
}
