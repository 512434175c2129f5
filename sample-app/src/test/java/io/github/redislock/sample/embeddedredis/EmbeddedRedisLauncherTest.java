package io.github.redislock.sample.embeddedredis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.sample.SampleApplication;
import io.github.redislock.testsupport.TestRedis;

import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The sample starts its own Redis exactly when none is configured, and never leaves it running. */
class EmbeddedRedisLauncherTest {

    @Test
    void withoutARedisConfiguredTheApplicationStartsAnEmbeddedOneAndStopsItOnClose() throws IOException {
        int port = freePort();
        try (ConfigurableApplicationContext context = start("--sample.embedded-redis.port=" + port)) {
            assertThat(context.getEnvironment().getProperty("spring.data.redis.port", Integer.class)).isEqualTo(port);
            StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
            redis.opsForValue().set("probe", "embedded");
            assertThat(redis.opsForValue().get("probe")).isEqualTo("embedded");
            assertThat(accepts(port)).isTrue();
        }
        assertThat(accepts(port)).isFalse();
    }

    @Test
    void withoutAPortConfiguredTheEmbeddedRedisTakesAFreeOne() throws IOException {
        try (ConfigurableApplicationContext context = start()) {
            Integer port = context.getEnvironment().getProperty("spring.data.redis.port", Integer.class);
            assertThat(port).isPositive();
            assertThat(accepts(port)).isTrue();
        }
    }

    @Test
    void withARedisConfiguredNothingIsStartedAndThatRedisIsUsed() {
        String key = "configured-" + UUID.randomUUID();
        TestRedis.shared().command("SET", key, "shared");
        try (ConfigurableApplicationContext context = start("--spring.data.redis.port=" + TestRedis.shared().port())) {
            assertThat(context.getEnvironment().getPropertySources().contains(EmbeddedRedisLauncher.PROPERTY_SOURCE_NAME)).isFalse();
            assertThat(context.getBean(StringRedisTemplate.class).opsForValue().get(key)).isEqualTo("shared");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spring.data.redis.host", "spring.data.redis.port", "spring.data.redis.url",
            "spring.data.redis.sentinel.master", "spring.data.redis.sentinel.nodes", "spring.data.redis.cluster.nodes"})
    void anyConnectionPropertyCountsAsARedisConfigured(String property) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", Map.of(property, "somewhere")));

        postProcess(environment);

        assertThat(environment.getPropertySources().contains(EmbeddedRedisLauncher.PROPERTY_SOURCE_NAME)).isFalse();
    }

    @Test
    void anEnvironmentVariableCountsAsARedisConfigured() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new SystemEnvironmentPropertySource("env",
                Map.of("SPRING_DATA_REDIS_HOST", "somewhere")));

        postProcess(environment);

        assertThat(environment.getPropertySources().contains(EmbeddedRedisLauncher.PROPERTY_SOURCE_NAME)).isFalse();
    }

    @Test
    void whenTheApplicationFailsToStartTheEmbeddedRedisIsStoppedToo() throws IOException {
        int port = freePort();

        assertThatThrownBy(() -> start("--sample.embedded-redis.port=" + port, "--redis-lock.watchdog-timeout=1ms"))
                .hasStackTraceContaining("redis-lock.watchdog-timeout");

        assertThat(accepts(port)).isFalse();
    }

    /**
     * Ctrl-C on {@code spring-boot:run}, or a container stop: the JVM is asked to exit, and Spring's shutdown hook
     * closes the application, letting the order in flight finish (graceful shutdown), while embedded-redis's own
     * hook would stop the server at once. The server must outlive the application's close, as on a context close.
     */
    @Test
    void whenTheJvmIsAskedToExitAnOrderInFlightStillFinishesOnTheEmbeddedRedis() throws Exception {
        int httpPort = freePort();
        Path output = Files.createTempFile("sample-sigterm", ".log");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process sample = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classpath,
                SampleApplication.class.getName(), "--server.port=" + httpPort, "--sample.read-write-delay=1500ms",
                "--spring.main.banner-mode=off")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + httpPort);
            awaitOutput(sample, output, "Started SampleApplication");
            assertThat(http.send(HttpRequest.newBuilder(base.resolve("/stock/widget?quantity=1"))
                    .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            CompletableFuture<HttpResponse<String>> order = http.sendAsync(HttpRequest.newBuilder(base.resolve("/orders/locked"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"widget\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!http.send(HttpRequest.newBuilder(base.resolve("/actuator/locks")).build(), HttpResponse.BodyHandlers.ofString())
                    .body().contains("stock:widget")) {
                assertThat(System.nanoTime()).as("the order took its lock within 10 s").isLessThan(deadline);
                Thread.sleep(20);
            }

            sample.destroy(); // SIGTERM, while the order is between reading and writing the stock

            assertThat(order.get(30, TimeUnit.SECONDS).statusCode()).as("the order in flight, output:%n%s", Files.readString(output))
                    .isEqualTo(201);
            assertThat(sample.waitFor(60, TimeUnit.SECONDS)).as("the sample exited").isTrue();
            assertThat(Files.readString(output)).contains("Stopped the embedded redis-server");
        }
        finally {
            sample.destroyForcibly();
            Files.deleteIfExists(output);
        }
    }

    private static void awaitOutput(Process process, Path output, String line) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.readString(output).contains(line)) {
            assertThat(process.isAlive()).as("the process is running; its output:%n%s", Files.readString(output)).isTrue();
            assertThat(System.nanoTime()).as("'%s' within 90 s", line).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    void aPortThatIsTakenFailsStartupWithAMessageNamingTheProperty() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> start("--sample.embedded-redis.port=" + taken.getLocalPort()))
                    .hasStackTraceContaining("sample.embedded-redis.port")
                    .hasStackTraceContaining("127.0.0.1:" + taken.getLocalPort());
        }
    }

    private static void postProcess(StandardEnvironment environment) {
        new EmbeddedRedisLauncher(destination -> LogFactory.getLog(EmbeddedRedisLauncher.class))
                .postProcessEnvironment(environment, new SpringApplication(SampleApplication.class));
    }

    private static ConfigurableApplicationContext start(String... args) {
        return new SpringApplicationBuilder(SampleApplication.class)
                .web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off")
                .run(args);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }
}
