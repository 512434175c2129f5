package io.github.redislock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Locates the {@code redis-server} executable that the tests and benchmarks start, once per JVM.
 *
 * <p>Why: the library must be tested against a real Redis (Lua scripts, pub/sub, expiry,
 * {@code INFO commandstats}), and a developer machine or CI runner may or may not have Redis
 * installed. The lookup order lets whoever runs the build pick the server:
 * <ol>
 *   <li>the environment variable {@value #ENV_VARIABLE}, which must name an executable file
 *       (for testing against a specific Redis version); an invalid value fails loudly instead of
 *       silently falling back, so a typo never makes a build test the wrong server;</li>
 *   <li>{@code redis-server} found on the {@code PATH};</li>
 *   <li>the binary shipped as a classpath resource by {@code com.github.codemonstur:embedded-redis},
 *       chosen by {@code os.name}/{@code os.arch} and extracted to a temporary directory that is
 *       deleted when the JVM exits.</li>
 * </ol>
 * An empty or blank {@value #ENV_VARIABLE} counts as unset.
 *
 * <p>Plain JDK only (no Spring, no Lettuce) so a non-test main such as the benchmarks can use it.
 */
public final class RedisBinary {

    /** Environment variable that names the {@code redis-server} executable to use. */
    public static final String ENV_VARIABLE = "REDIS_SERVER";

    private static final String EXECUTABLE_NAME = "redis-server";
    private static final Pattern VERSION_PATTERN = Pattern.compile("v=(\\S+)");
    private static final long VERSION_TIMEOUT_SECONDS = 10;

    /** Where the executable came from. */
    public enum Source {
        /** Named by the environment variable {@value RedisBinary#ENV_VARIABLE}. */
        ENVIRONMENT_VARIABLE,
        /** Found as {@code redis-server} in a directory of the {@code PATH}. */
        PATH,
        /** Extracted from the embedded-redis jar's classpath resources. */
        EMBEDDED_REDIS_JAR
    }

    private record Resolved(Path executable, Source source, String detail) {
    }

    private static Resolved resolved;
    private static String version;

    private RedisBinary() {
    }

    /**
     * The {@code redis-server} executable to start, resolved on first call.
     *
     * @throws IllegalStateException if {@value #ENV_VARIABLE} is set to something that is not an
     *     executable file, or if no binary can be found or extracted for this platform
     */
    public static Path path() {
        return resolved().executable();
    }

    /** Where {@link #path()} came from. */
    public static Source source() {
        return resolved().source();
    }

    /**
     * The server version reported by {@code redis-server --version} (e.g. {@code 6.2.11}),
     * computed once. Never throws: on failure it returns {@code "unknown (<reason>)"}.
     */
    public static synchronized String version() {
        if (version == null) {
            version = runVersion(path());
        }
        return version;
    }

    /**
     * One line for logs saying which binary was chosen, why, and its version, for example
     * {@code redis-server 6.2.11 at /tmp/x/redis-server-6.2.6-v5-linux-amd64 (extracted from the
     * embedded-redis classpath resource redis-server-6.2.6-v5-linux-amd64)}.
     */
    public static String describe() {
        Resolved r = resolved();
        return "redis-server " + version() + " at " + r.executable() + " (" + r.detail() + ")";
    }

    private static synchronized Resolved resolved() {
        // Failures are not cached: every caller gets the same clear IllegalStateException.
        if (resolved == null) {
            resolved = resolve(System.getenv(), System.getProperty("os.name", ""),
                    System.getProperty("os.arch", ""));
        }
        return resolved;
    }

    private static Resolved resolve(Map<String, String> env, String osName, String osArch) {
        String fromEnv = env.get(ENV_VARIABLE);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new Resolved(checkEnvironmentValue(fromEnv), Source.ENVIRONMENT_VARIABLE,
                    "from environment variable " + ENV_VARIABLE);
        }
        Path onPath = findOnPath(env.get("PATH"), osName);
        if (onPath != null) {
            return new Resolved(onPath, Source.PATH, "found on the PATH");
        }
        String resource = embeddedResourceName(osName, osArch);
        return new Resolved(extract(resource), Source.EMBEDDED_REDIS_JAR,
                "extracted from the embedded-redis classpath resource " + resource);
    }

    private static Path checkEnvironmentValue(String value) {
        Path candidate;
        try {
            candidate = Path.of(value);
        }
        catch (InvalidPathException ex) {
            throw new IllegalStateException("Environment variable " + ENV_VARIABLE + " is set to '"
                    + value + "', which is not a valid path: " + ex.getMessage(), ex);
        }
        String problem;
        if (!Files.exists(candidate)) {
            problem = "that file does not exist";
        }
        else if (!Files.isRegularFile(candidate)) {
            problem = "that is not a regular file";
        }
        else if (!Files.isExecutable(candidate)) {
            problem = "that file is not executable";
        }
        else {
            return candidate.toAbsolutePath();
        }
        throw new IllegalStateException("Environment variable " + ENV_VARIABLE + " is set to '" + value
                + "' but " + problem + "; point it to a redis-server executable or unset it");
    }

    private static Path findOnPath(String pathVariable, String osName) {
        if (pathVariable == null || pathVariable.isBlank()) {
            return null;
        }
        boolean windows = osName.toLowerCase(Locale.ROOT).contains("win");
        String[] names = windows
                ? new String[] {EXECUTABLE_NAME + ".exe", EXECUTABLE_NAME}
                : new String[] {EXECUTABLE_NAME};
        for (String directory : pathVariable.split(Pattern.quote(File.pathSeparator))) {
            if (directory.isBlank()) {
                continue;
            }
            for (String name : names) {
                try {
                    Path candidate = Path.of(directory).resolve(name);
                    if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                        return candidate.toAbsolutePath();
                    }
                }
                catch (InvalidPathException ignored) {
                    // A malformed PATH entry cannot contain redis-server; keep looking.
                }
            }
        }
        return null;
    }

    /** Name of the embedded-redis 1.4.x resource for this platform. */
    private static String embeddedResourceName(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        if (os.contains("linux")) {
            if (x64) {
                return "redis-server-6.2.6-v5-linux-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.7-linux-arm64";
            }
        }
        else if (os.contains("mac") || os.contains("darwin")) {
            if (x64) {
                return "redis-server-6.2.6-v5-darwin-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.6-v5-darwin-arm64";
            }
        }
        throw new IllegalStateException("No redis-server found: environment variable " + ENV_VARIABLE
                + " is not set, redis-server is not on the PATH, and embedded-redis has no binary for os.name='"
                + osName + "', os.arch='" + osArch + "'. Install Redis or set " + ENV_VARIABLE + ".");
    }

    private static Path extract(String resource) {
        ClassLoader loader = RedisBinary.class.getClassLoader();
        InputStream in = loader == null ? null : loader.getResourceAsStream(resource);
        if (in == null && Thread.currentThread().getContextClassLoader() != null) {
            in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource);
        }
        if (in == null) {
            throw new IllegalStateException("No redis-server found: environment variable " + ENV_VARIABLE
                    + " is not set, redis-server is not on the PATH, and the classpath resource '" + resource
                    + "' is missing (is com.github.codemonstur:embedded-redis 1.4.x on the classpath?)");
        }
        try (InputStream source = in) {
            Path directory = Files.createTempDirectory("redis-lock-redis-server-");
            // deleteOnExit runs in reverse registration order: the file goes first, then the directory.
            directory.toFile().deleteOnExit();
            Path target = directory.resolve(resource);
            target.toFile().deleteOnExit();
            Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
            if (!target.toFile().setExecutable(true, true)) {
                throw new IllegalStateException("Could not make " + target + " executable");
            }
            return target;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not extract the embedded-redis resource '" + resource
                    + "' to a temporary directory: " + ex.getMessage(), ex);
        }
    }

    private static String runVersion(Path executable) {
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
            if (!process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                return "unknown (--version did not finish within " + VERSION_TIMEOUT_SECONDS + " s)";
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
