package io.github.redislock.sample.embeddedredis;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import redis.embedded.RedisInstance;

/**
 * The embedded {@code redis-server} process, which outlives the application it serves.
 *
 * <p>Why not embedded-redis's own {@code RedisServer}: every instance registers a JVM shutdown hook that
 * stops the server at once when the JVM is asked to exit (Ctrl-C, SIGTERM), beside Spring's hook that
 * closes the application. Redis was then gone while the web server let the requests in flight finish and
 * the lockers released their locks: an order caught between reading and writing the stock hung until the
 * graceful shutdown gave up. Here the library's hook, which calls {@link #stop()}, first lets Spring's
 * shutdown hook finish closing the application (which stops the server through {@link #stopNow()}).
 */
final class EmbeddedRedisServer extends RedisInstance {

    /** The thread Spring Boot closes its applications on when the JVM is asked to exit. */
    private static final String SPRING_SHUTDOWN_HOOK = "SpringApplicationShutdownHook";

    /** The longest the library's hook waits for Spring's: its graceful shutdown phase plus the closing after it. */
    private static final long SPRING_SHUTDOWN_WAIT_MILLIS = 60_000;

    /** How long the library's hook looks for Spring's to have started. */
    private static final long SPRING_HOOK_START_MILLIS = 1_000;

    EmbeddedRedisServer(int port, List<String> args, Consumer<String> out, Consumer<String> err) {
        super(port, args, SERVER_READY_PATTERN, false, out, err);
    }

    /** Stops the server now: the application is done with it. */
    void stopNow() throws IOException {
        super.stop();
    }

    /** Called by embedded-redis's shutdown hook at JVM exit: the application closing beside it stops the server first. */
    @Override
    public void stop() throws IOException {
        try {
            Thread springHook = isActive() ? springShutdownHook() : null;
            if (springHook != null) {
                springHook.join(SPRING_SHUTDOWN_WAIT_MILLIS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        super.stop();
    }

    /**
     * Spring's shutdown hook thread, or null when there is none. The JVM starts its shutdown hooks one after the
     * other and this one may run first: a moment is allowed for Spring's to start.
     */
    private static Thread springShutdownHook() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SPRING_HOOK_START_MILLIS);
        do {
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (thread.getName().equals(SPRING_SHUTDOWN_HOOK) && thread != Thread.currentThread()) {
                    return thread;
                }
            }
            Thread.sleep(10);
        } while (System.nanoTime() < deadline);
        return null;
    }
}
