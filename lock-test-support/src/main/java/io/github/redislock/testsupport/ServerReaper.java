package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Makes sure no {@code redis-server} started by this JVM outlives it, and removes the servers'
 * temporary directories at exit.
 *
 * <p>Why two mechanisms: a JVM shutdown hook destroys every tracked process on a normal exit, but a
 * SIGKILLed JVM (a surefire fork that timed out, a killed IDE run) runs no hooks. So on Unix each
 * server also gets a tiny {@code sh} watcher that polls this JVM's pid and {@code kill -9}s the server
 * once the JVM is gone. Callers still stop what they start; this is the safety net.
 */
final class ServerReaper {

    /** System property that, set to {@code true}, keeps the servers' directories (logs) after exit. */
    static final String KEEP_DIRS_PROPERTY = "redislock.test.keepRedisDirs";

    private static final boolean UNIX = !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
    private static final long EXIT_WAIT_SECONDS = 2;

    /** Server and watcher processes that are (or may be) alive. */
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    /** Every work directory ever created. */
    private static final Set<Path> WORK_DIRS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ServerReaper::destroyAllAtShutdown, "redis-server-shutdown-hook"));
    }

    private ServerReaper() {
    }

    /** Whether signals ({@code kill -STOP} and friends) and the watcher are available here. */
    static boolean isUnix() {
        return UNIX;
    }

    /** Deletes {@code directory} at JVM exit unless {@value #KEEP_DIRS_PROPERTY} is true. */
    static void deleteAtExit(Path directory) {
        WORK_DIRS.add(directory);
    }

    /**
     * Tracks a freshly started server and starts its watcher.
     *
     * @return the watcher process to pass to {@link #release}, or null where there is none
     */
    static Process track(Process server) {
        LIVE.add(server);
        Process watcher = startWatcher(server.pid());
        if (watcher != null) {
            LIVE.add(watcher);
        }
        return watcher;
    }

    /** Forgets a server that is gone and ends its watcher; either may be null. */
    static void release(Process server, Process watcher) {
        if (watcher != null) {
            watcher.destroyForcibly();
            LIVE.remove(watcher);
        }
        if (server != null) {
            LIVE.remove(server);
        }
    }

    private static Process startWatcher(long serverPid) {
        if (!UNIX) {
            return null;
        }
        long javaPid = ProcessHandle.current().pid();
        String script = "while kill -0 " + javaPid + " 2>/dev/null; do sleep 1; done; kill -9 " + serverPid + " 2>/dev/null";
        try {
            Process watcher = new ProcessBuilder("sh", "-c", script)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            watcher.getOutputStream().close();
            return watcher;
        }
        catch (IOException ex) {
            // Only a safety net for a SIGKILLed JVM; the shutdown hook still covers normal exits.
            return null;
        }
    }

    private static void destroyAllAtShutdown() {
        List<Process> dying = new ArrayList<>();
        for (Process process : LIVE) {
            dying.add(process.destroyForcibly());
        }
        for (Process process : dying) {
            try {
                process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!Boolean.getBoolean(KEEP_DIRS_PROPERTY)) {
            WORK_DIRS.forEach(ServerReaper::deleteRecursively);
        }
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (IOException | UncheckedIOException ignored) {
            // Best effort at JVM exit.
        }
    }
}
