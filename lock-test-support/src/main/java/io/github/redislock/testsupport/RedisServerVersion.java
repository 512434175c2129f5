package io.github.redislock.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Asks a {@code redis-server} executable for its version ({@code redis-server --version}).
 *
 * <p>Why: logs and reports name the version actually tested, not the one a file name suggests. It
 * never throws: a version is for reading, and a binary that cannot say it still gets its real
 * startup error later.
 */
final class RedisServerVersion {

    private static final Pattern VERSION_PATTERN = Pattern.compile("v=(\\S+)");
    private static final long TIMEOUT_SECONDS = 10;

    private RedisServerVersion() {
    }

    /** The version, e.g. {@code 7.0.15}, or {@code "unknown (<reason>)"}. */
    static String of(Path executable) {
        Process process = null;
        Path output = null;
        try {
            // Output goes to a file so a misbehaving binary can never block us past the timeout.
            output = Files.createTempFile("redis-server-version-", ".txt");
            process = new ProcessBuilder(executable.toString(), "--version")
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            process.getOutputStream().close();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                return "unknown (--version did not finish within " + TIMEOUT_SECONDS + " s)";
            }
            String text = Files.readString(output, StandardCharsets.UTF_8).trim();
            Matcher matcher = VERSION_PATTERN.matcher(text);
            if (matcher.find()) {
                return matcher.group(1);
            }
            return text.isEmpty() ? "unknown (--version printed nothing)" : text;
        }
        catch (IOException ex) {
            return "unknown (" + ex.getMessage() + ")";
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "unknown (interrupted)";
        }
        finally {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
            }
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                }
                catch (IOException ignored) {
                    // A leftover temp file is harmless.
                }
            }
        }
    }
}
