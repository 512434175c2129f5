package io.github.redislock.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockerFixture;

/**
 * A {@link SafetyWorker} (or another small program of this suite) running as a separate JVM: the current {@code java} on the test classpath.
 * Faults are real signals: {@code kill -9}, {@code kill -STOP}, {@code kill -CONT}.
 */
final class WorkerProcess {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "safety-worker-reaper"));
    }

    final String name;
    private final Process process;
    private final Path log;

    private WorkerProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        LIVE.add(process);
    }

    static WorkerProcess start(String name, Path logDirectory, List<String> args) {
        return start(name, logDirectory, SafetyWorker.class, args);
    }

    /** @param main the class whose {@code main} the JVM runs */
    static WorkerProcess start(String name, Path logDirectory, Class<?> main, List<String> args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // Surefire may run tests from a manifest-only jar; this property holds the real test classpath.
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        // A worker's Locker takes the test JVM's path (LockerFixture.CALLER_CONNECTIONS): the shared-connection leg kills workers too.
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-D" + LockerFixture.CALLER_CONNECTIONS_PROPERTY + "=" + LockerFixture.CALLER_CONNECTIONS, "-cp", classpath, main.getName()));
        command.addAll(args);
        try {
            Files.createDirectories(logDirectory);
            Path log = logDirectory.resolve(name + ".log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            Process process = builder.start();
            process.getOutputStream().close();
            return new WorkerProcess(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start safety worker " + name, e);
        }
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** {@code kill -9}: no shutdown hook, no unlock, no goodbye. */
    void kill() {
        signal("KILL");
        awaitExit(5);
    }

    /** {@code kill -STOP}: every thread of the JVM stops, the watchdog too, like a long GC pause. */
    void pause() {
        signal("STOP");
    }

    void resume() {
        signal("CONT");
    }

    /** {@code kill -TERM}: the JVM runs its shutdown hooks (once resumed, if paused) and exits. */
    void terminate() {
        signal("TERM");
    }

    boolean awaitExit(long seconds) {
        try {
            boolean exited = process.waitFor(seconds, TimeUnit.SECONDS);
            if (exited) {
                LIVE.remove(process);
            }
            return exited;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    void destroy() {
        if (process.isAlive()) {
            try {
                signal("CONT"); // a paused JVM cannot even die gracefully
            } catch (IllegalStateException e) {
                if (process.isAlive()) { // else it exited after isAlive() said it lived: nothing is left to wake
                    throw e;
                }
            }
            process.destroyForcibly();
            awaitExit(5);
        }
        LIVE.remove(process);
    }

    /** The last lines of the worker's output, for failure messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed: "
                        + new String(kill.getInputStream().readAllBytes()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot send SIG" + signal + " to worker " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while signalling worker " + name, e);
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
