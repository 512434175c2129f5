package io.github.redislock.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Proves the test launcher itself works, since every Redis-backed test depends on it: servers
 * start and answer, keep data until restarted, die when killed, count commands, and never share
 * a port.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RedisServerProcessTest {

    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void startedServerAnswersPing() throws IOException {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            assertThat(server.isRunning()).isTrue();
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.redisUri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(rawPing(server.port(), 2000)).isEqualTo("+PONG");
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void commandSetsAndGetsAndParsesReplies() {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            assertThat(server.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(server.command("GET", "k")).isEqualTo("v");
            assertThat(server.command("GET", "missing")).isNull();
            assertThat(server.command("INCR", "counter")).isEqualTo(1L);
            assertThat(server.command("RPUSH", "list", "a", "b")).isEqualTo(2L);
            assertThat(server.command("LRANGE", "list", "0", "-1")).isEqualTo(List.of("a", "b"));
            assertThatThrownBy(() -> server.command("INCR", "k"))
                    .isInstanceOf(RedisServerProcess.ErrorReplyException.class)
                    .hasMessageStartingWith("ERR");
            assertThat(server.info("server")).containsEntry("tcp_port", Integer.toString(server.port()));
        }
    }

    @Test
    void restartKeepsThePortAndLosesTheData() {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            int port = server.port();
            long pid = server.pid();
            server.command("SET", "k", "v");

            server.restart();

            assertThat(server.port()).isEqualTo(port);
            assertThat(server.pid()).isNotEqualTo(pid);
            assertThat(server.isRunning()).isTrue();
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.command("GET", "k")).isNull();
        }
    }

    @Test
    void killedServerIsUnreachableAndCanBeRestarted() {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            int port = server.port();

            server.kill();

            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> rawPing(port, 500)).isInstanceOf(ConnectException.class);
            assertThatThrownBy(() -> server.command("PING")).isInstanceOf(UncheckedIOException.class);

            server.restart();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void commandCountReadsCommandStats() {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            assertThat(server.commandCount("set")).isZero();
            server.command("SET", "a", "1");
            server.command("SET", "b", "2");
            server.command("SET", "c", "3");
            assertThat(server.commandCount("set")).isEqualTo(3);
            assertThat(server.commandCount("SET")).isEqualTo(3);
            assertThat(server.commandCount("evalsha")).isZero();

            server.resetStats();
            assertThat(server.commandCount("set")).isZero();
        }
    }

    @Test
    void serversStartedTogetherGetDifferentPorts() {
        try (RedisServerProcess first = RedisServerProcess.start();
                RedisServerProcess second = RedisServerProcess.start()) {
            assertThat(first.port()).isNotEqualTo(second.port());
            first.command("SET", "k", "first");
            assertThat(second.command("GET", "k")).isNull();
            assertThat(first.command("GET", "k")).isEqualTo("first");
        }
    }

    @Test
    void pausedServerAnswersNothingUntilResumed() throws IOException {
        assumeFalse(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win"));
        try (RedisServerProcess server = RedisServerProcess.start()) {
            server.pause();
            assertThat(server.isPaused()).isTrue();
            assertThat(server.isRunning()).isTrue();
            assertThatThrownBy(() -> rawPing(server.port(), 300)).isInstanceOf(SocketTimeoutException.class);

            server.resume();
            assertThat(server.isPaused()).isFalse();
            assertThat(rawPing(server.port(), 2000)).isEqualTo("+PONG");

            server.pause(); // stop() must cope with a paused server
        }
    }

    @Test
    void passwordFromRequirepassIsUsedByTheHelpers() throws IOException {
        try (RedisServerProcess server = RedisServerProcess.start("--requirepass", "s3cret")) {
            assertThat(rawPing(server.port(), 2000)).startsWith("-NOAUTH");
            assertThat(server.command("PING")).isEqualTo("PONG");
            server.stop();
            assertThat(server.isRunning()).isFalse();
        }
    }

    @Test
    void stopEndsTheProcess() {
        RedisServerProcess server = TestRedis.startNew();
        ProcessHandle handle = ProcessHandle.of(server.pid()).orElseThrow();
        server.stop();
        assertThat(server.isRunning()).isFalse();
        assertThat(handle.isAlive()).isFalse();
        server.stop(); // idempotent
    }

    @Test
    void sharedServerIsStartedOnce() {
        RedisServerProcess shared = TestRedis.shared();
        assertThat(TestRedis.shared()).isSameAs(shared);
        assertThat(shared.command("PING")).isEqualTo("PONG");
    }

    /** PING with a plain socket, independent of the launcher's own RESP client. */
    private static String rawPing(int port, int timeoutMillis) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            out.write(PING);
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) != -1 && b != '\r') {
                line.append((char) b);
            }
            return line.toString();
        }
    }
}
