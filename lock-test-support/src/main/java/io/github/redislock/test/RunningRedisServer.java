package io.github.redislock.test;

import io.github.redislock.testsupport.RedisServerProcess;

/**
 * The {@code redis-server} a {@link WithRedisServer} test class runs against: where it listens, and a
 * way to look at what the application wrote, independently of the application's own Redis client.
 */
public final class RunningRedisServer {

    private final RedisServerProcess process;

    RunningRedisServer(RedisServerProcess process) {
        this.process = process;
    }

    /**
     * The address the server listens on.
     *
     * @return always {@code 127.0.0.1}
     */
    public String host() {
        return process.host();
    }

    /**
     * The port the server listens on, chosen free when it started.
     *
     * @return the port
     */
    public int port() {
        return process.port();
    }

    /**
     * The server as a Redis URI, the form {@code spring.data.redis.url} takes.
     *
     * @return {@code redis://127.0.0.1:<port>}
     */
    public String uri() {
        return process.redisUri();
    }

    /**
     * Sends one command over a fresh connection and returns the reply, for checking what the
     * application wrote, e.g. {@code command("EXISTS", "lock:order-42")}.
     *
     * @param args the command name and its arguments
     * @return a {@code String} for simple and bulk strings, a {@code Long} for integers, a
     *     {@code List<Object>} for arrays, null for nil
     * @throws RedisServerProcess.ErrorReplyException if Redis replies with an error
     * @throws java.io.UncheckedIOException if the server cannot be reached or does not reply within 5 s
     */
    public Object command(String... args) {
        return process.command(args);
    }

    /** The launcher's handle, for this package's tests and lifecycle. */
    RedisServerProcess process() {
        return process;
    }

    @Override
    public String toString() {
        return process.toString();
    }
}
