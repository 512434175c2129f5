package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisBinary;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter over TLS, configured the Spring Boot way ({@code spring.data.redis.ssl.*} and an SSL
 * bundle), against a redis-server listening on a TLS port with a certificate the test makes with the
 * JDK's keytool. Skipped, naming the binary, only when that redis-server was built without TLS (set
 * REDIS_SERVER to one that has it); the embedded-redis jar's linux-amd64 6.2 and Debian's 7.0 both
 * have it, so it runs on both legs of the server matrix.
 */
class TlsTest {

    static Path certificates;
    static RedisServerProcess redis;
    static int tlsPort;

    @BeforeAll
    static void startRedisWithTls() throws Exception {
        certificates = Files.createTempDirectory("redis-lock-tls-");
        Path keystore = certificates.resolve("redis.p12");
        run(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair", "-alias", "redis", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "2", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-storetype", "PKCS12", "-keystore", keystore.toString(), "-storepass", "changeit", "-keypass", "changeit");
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, "changeit".toCharArray());
        }
        writePem(certificates.resolve("redis.crt"), "CERTIFICATE", store.getCertificate("redis").getEncoded());
        writePem(certificates.resolve("redis.key"), "PRIVATE KEY", store.getKey("redis", "changeit".toCharArray()).getEncoded());
        try (ServerSocket socket = new ServerSocket(0)) {
            tlsPort = socket.getLocalPort();
        }
        try {
            redis = TestRedis.startNew("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", certificates.resolve("redis.crt").toString(),
                    "--tls-key-file", certificates.resolve("redis.key").toString(), "--tls-ca-cert-file", certificates.resolve("redis.crt").toString(),
                    "--tls-auth-clients", "no");
        } catch (IllegalStateException e) {
            skipOnlyWhenTheBinaryHasNoTls(e);
        }
    }

    /**
     * A redis-server built without TLS refuses the {@code tls-*} options as unknown directives; only
     * that is a reason to skip, naming the binary and the missing capability. Any other start
     * failure (a certificate it cannot read, a port taken) is a failure of this test, not a skip.
     */
    private static void skipOnlyWhenTheBinaryHasNoTls(IllegalStateException startFailure) {
        String message = String.valueOf(startFailure.getMessage());
        String refusal = message.lines().filter(line -> line.contains("Bad directive") || line.contains("tls-")
                && (line.contains("Unknown") || line.contains("unknown") || line.contains("not supported"))).findFirst().orElse(null);
        if (refusal == null) {
            throw startFailure;
        }
        String reason = "Skipped: " + RedisBinary.describe() + " was built without TLS support (BUILD_TLS=no): it refused the"
                + " tls-port/tls-cert-file options (" + refusal.strip() + "); set REDIS_SERVER to a redis-server built with"
                + " BUILD_TLS=yes, such as Debian's redis-server package";
        System.getLogger(TlsTest.class.getName()).log(System.Logger.Level.WARNING, reason);
        Assumptions.abort(reason);
    }

    @AfterAll
    static void stopRedis() throws IOException {
        if (redis != null) {
            redis.stop();
        }
        try (var files = Files.list(certificates)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(certificates);
    }

    @Test
    void locksWaitsAndReleasesOverTls() {
        new ApplicationContextRunner()
                .withConfiguration(BootLine.redisAnd(SslAutoConfiguration.class, RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + tlsPort,
                        "spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=redis",
                        "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + certificates.resolve("redis.crt"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Waiters.assertAReleaseWakesAWaiter(context, "tls");
                });
        // The context knew only the TLS port, which speaks nothing but TLS.
        assertThat(redis.commandCount("evalsha") + redis.commandCount("eval")).as("lock scripts this server ran").isPositive();
    }

    private static void writePem(Path file, String type, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n", StandardCharsets.US_ASCII);
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }
}
