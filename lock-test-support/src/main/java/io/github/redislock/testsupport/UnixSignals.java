package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Sends a Unix signal to a process through {@code kill}.
 *
 * <p>Why: the JDK can only terminate a process, but the fault tests need to freeze a server
 * ({@code SIGSTOP}, like a long GC pause or a partition) and let it go on ({@code SIGCONT}).
 */
final class UnixSignals {

    private static final long KILL_TIMEOUT_SECONDS = 5;

    private UnixSignals() {
    }

    /**
     * Sends {@code SIG<signalName>} to {@code target} and waits for {@code kill} to finish.
     *
     * @throws UnsupportedOperationException on a system without {@code kill}
     * @throws IllegalStateException when {@code kill} fails, naming its exit code and output
     */
    static void send(Process target, String signalName) {
        if (!ServerReaper.isUnix()) {
            throw new UnsupportedOperationException("Sending SIG" + signalName + " needs a Unix-like system");
        }
        try {
            Process kill = new ProcessBuilder("sh", "-c", "kill -" + signalName + " " + target.pid())
                    .redirectErrorStream(true)
                    .start();
            kill.getOutputStream().close();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!kill.waitFor(KILL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signalName + " " + target.pid() + " did not finish");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signalName + " " + target.pid() + " failed with exit code "
                        + kill.exitValue() + ": " + output);
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not send SIG" + signalName + " to pid " + target.pid(), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending SIG" + signalName, ex);
        }
    }
}
