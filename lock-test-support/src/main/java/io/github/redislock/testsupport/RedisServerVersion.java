package io.github.redislock.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Asks a {@code redis-server} or {@code valkey-server} executable which server it is and its version
 * ({@code --version}: {@code Redis server v=7.0.15 ...}, {@code Valkey server v=8.0.1 ...}).
 *
 * <p>Why: logs and reports name the server and version actually tested, not the ones a file name
 * suggests. It never throws: a version is for reading, and a binary that cannot say it still gets its
 * real startup error later.
 *
 * @param name {@code redis-server} or {@code valkey-server}; {@code redis-server} when the output names neither
 * @param version e.g. {@code 7.0.15}, or {@code "unknown (<reason>)"}
 */
record RedisServerVersion(String name, String version) {

    private static final Pattern VERSION_PATTERN = Pattern.compile("v=(\\S+)");
    private static final Pattern VALKEY_PATTERN = Pattern.compile("^Valkey server", Pattern.CASE_INSENSITIVE);
    private static final long TIMEOUT_SECONDS = 10;

    /** Whether the executable is Valkey's. */
    boolean isValkey() {
        return name.equals("valkey-server");
    }

    /** What the executable says it is. */
    static RedisServerVersion of(Path executable) {
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
                return unknown("--version did not finish within " + TIMEOUT_SECONDS + " s");
            }
            String text = Files.readString(output, StandardCharsets.UTF_8).trim();
            String name = VALKEY_PATTERN.matcher(text).find() ? "valkey-server" : "redis-server";
            Matcher matcher = VERSION_PATTERN.matcher(text);
            if (matcher.find()) {
                return new RedisServerVersion(name, matcher.group(1));
            }
            return text.isEmpty() ? unknown("--version printed nothing") : new RedisServerVersion(name, text);
        }
        catch (IOException ex) {
            return unknown(ex.getMessage());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return unknown("interrupted");
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

    private static RedisServerVersion unknown(String reason) {
        return new RedisServerVersion("redis-server", "unknown (" + reason + ")");
    }
}
