package io.github.redislock.testsupport;

import java.lang.System.Logger.Level;

/**
 * Where tests get their Redis from.
 *
 * <p>Why: starting a server per test class would make the suite slow, and Spring's test context
 * cache keeps contexts (and their connection settings) alive across classes, so most tests share
 * one server whose address never changes for the whole JVM: {@link #shared()}. Tests that break
 * the server on purpose (kill, restart, pause, passwords, ACLs) must not disturb the others and
 * take their own with {@link #startNew(String...)}.
 *
 * <p>Rules for callers: never stop, kill or pause the shared server; use unique key names on it
 * (other tests use it too); close every server from {@code startNew} yourself (try-with-resources,
 * {@code @AfterEach} or {@code @AfterAll}). A JVM shutdown hook ends whatever is left, including the shared server.
 */
public final class TestRedis {

    private static final System.Logger LOG = System.getLogger(TestRedis.class.getName());

    private static RedisServerProcess shared;
    private static boolean binaryLogged;

    private TestRedis() {
    }

    /**
     * The one server shared by the whole test JVM, started on first use and never stopped before
     * the JVM exits. If a test broke the rule and left it killed or paused, it is brought back on
     * the same port (with an empty dataset) rather than failing every later test.
     */
    public static synchronized RedisServerProcess shared() {
        if (shared == null) {
            logBinaryOnce();
            shared = RedisServerProcess.start();
            LOG.log(Level.INFO, "Shared test Redis listening at {0} (pid {1})", shared.redisUri(),
                    Long.toString(shared.pid()));
        }
        else if (!shared.isRunning()) {
            LOG.log(Level.WARNING, "Shared test Redis at {0} was not running (a test stopped or killed it); "
                    + "restarting it on the same port", shared.redisUri());
            shared.restart();
        }
        else if (shared.isPaused()) {
            LOG.log(Level.WARNING, "Shared test Redis at {0} was paused by a test; resuming it", shared.redisUri());
            shared.resume();
        }
        return shared;
    }

    /**
     * Starts a separate server that only the caller uses, for tests that need isolation or break
     * the server on purpose. The caller must close it.
     *
     * @param extraArgs extra {@code redis-server} options, see {@link RedisServerProcess#start(String...)}
     */
    public static RedisServerProcess startNew(String... extraArgs) {
        logBinaryOnce();
        RedisServerProcess server = RedisServerProcess.start(extraArgs);
        LOG.log(Level.DEBUG, "Started isolated test Redis at {0} (pid {1})", server.redisUri(),
                Long.toString(server.pid()));
        return server;
    }

    private static synchronized void logBinaryOnce() {
        if (!binaryLogged) {
            LOG.log(Level.INFO, "Tests use {0}", RedisBinary.describe());
            binaryLogged = true;
        }
    }
}
