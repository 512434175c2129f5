package io.github.redislock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Locates the {@code redis-server} executables that the tests and benchmarks start, once per JVM.
 *
 * <p>Why: the library must be tested against a real Redis (Lua scripts, pub/sub, expiry,
 * {@code INFO commandstats}), on every server version it claims, and a developer machine or CI
 * runner may or may not have Redis installed. The candidates, in this order, each real file once:
 * <ol>
 *   <li>the environment variable {@value #ENV_VARIABLE}, which must name an executable file
 *       (for testing against a specific Redis version); an invalid value fails loudly instead of
 *       silently falling back, so a typo never makes a build test the wrong server;</li>
 *   <li>{@code redis-server} found on the {@code PATH};</li>
 *   <li>{@code redis-server} in the usual install locations ({@link #KNOWN_LOCATIONS}), for a
 *       build whose {@code PATH} is narrower than the shell's;</li>
 *   <li>the binary shipped as a classpath resource by {@code com.github.codemonstur:embedded-redis},
 *       chosen by {@code os.name}/{@code os.arch} and extracted to a temporary directory that is
 *       deleted when the JVM exits.</li>
 * </ol>
 * An empty or blank {@value #ENV_VARIABLE} counts as unset. With {@value #IGNORE_INSTALLED_VARIABLE}
 * set to {@code true} the {@code PATH} and the install locations are not searched, which is how a
 * machine without an installed Redis is reproduced on one that has it.
 *
 * <p>The server matrix: a JVM uses one candidate, its <em>leg</em>, named by the system property
 * {@value #LEG_PROPERTY} (an index into the list above; 0, the first candidate, when unset). The
 * build runs the whole suite on leg 0 and a chosen set of suites again on leg 1 (see the
 * {@code server-matrix} execution in {@code lock-autoconfigure/pom.xml}), so with an installed Redis
 * both it and the embedded 6.2 are tested. A leg with no candidate is skipped by {@link ServerLeg}.
 *
 * <p>Plain JDK only (no Spring, no Lettuce) so a non-test main such as the benchmarks can use it.
 */
public final class RedisBinary {

    /** Environment variable that names the {@code redis-server} executable to use. */
    public static final String ENV_VARIABLE = "REDIS_SERVER";

    /** Environment variable that, set to {@code true}, hides every installed {@code redis-server}. */
    public static final String IGNORE_INSTALLED_VARIABLE = "REDIS_SERVER_IGNORE_INSTALLED";

    /** System property naming the index of the candidate this JVM uses. */
    public static final String LEG_PROPERTY = "redislock.test.server-leg";

    /** Where Redis is usually installed (Debian/Ubuntu packages, source builds, Homebrew). */
    static final List<String> KNOWN_LOCATIONS = List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server",
            "/opt/homebrew/bin/redis-server");

    private static final String EXECUTABLE_NAME = "redis-server";
    private static final Pattern VERSION_PATTERN = Pattern.compile("v=(\\S+)");
    private static final long VERSION_TIMEOUT_SECONDS = 10;

    /** Where the executable came from. */
    public enum Source {
        /** Named by the environment variable {@value RedisBinary#ENV_VARIABLE}. */
        ENVIRONMENT_VARIABLE,
        /** Found as {@code redis-server} in a directory of the {@code PATH}. */
        PATH,
        /** Found in one of the usual install locations. */
        KNOWN_LOCATION,
        /** Extracted from the embedded-redis jar's classpath resources. */
        EMBEDDED_REDIS_JAR
    }

    /** A candidate; an embedded one has no executable until it is extracted. */
    record Resolved(Path executable, Source source, String detail, String resource) {
    }

    private static List<Resolved> candidates;
    private static Resolved resolved;
    private static String version;

    private RedisBinary() {
    }

    /**
     * The {@code redis-server} executable to start, resolved on first call.
     *
     * @throws IllegalStateException if {@value #ENV_VARIABLE} is set to something that is not an
     *     executable file, if no binary can be found or extracted for this platform, or if this
     *     JVM's leg has no candidate (see {@link #legUnavailableReason()})
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
        return "redis-server " + version() + " at " + r.executable() + " (" + r.detail() + ", matrix leg " + leg() + ")";
    }

    /** This JVM's leg: the index of the candidate it uses. */
    public static int leg() {
        String value = System.getProperty(LEG_PROPERTY, "").trim();
        if (value.isEmpty()) {
            return 0;
        }
        try {
            int leg = Integer.parseInt(value);
            if (leg >= 0) {
                return leg;
            }
        }
        catch (NumberFormatException ignored) {
            // Reported below.
        }
        throw new IllegalStateException("System property " + LEG_PROPERTY + " is '" + value
                + "'; it must be the index (0, 1, ...) of a redis-server candidate");
    }

    /**
     * Why this JVM's leg cannot run, naming what was found, or null when it can. Leg 0 always has a
     * candidate where the embedded jar has a binary for this platform.
     */
    public static synchronized String legUnavailableReason() {
        List<Resolved> all = candidates();
        int leg = leg();
        if (leg < all.size()) {
            return null;
        }
        StringBuilder found = new StringBuilder();
        for (Resolved candidate : all) {
            found.append(found.length() == 0 ? "" : "; ").append(candidate.executable() == null
                    ? "the embedded-redis jar's " + candidate.resource() : candidate.executable() + " (" + candidate.detail() + ")");
        }
        return "matrix leg " + leg + " has no redis-server: only " + all.size() + " distinct one(s) found (" + found
                + "), and leg 0 runs the first. " + (Boolean.parseBoolean(System.getenv(IGNORE_INSTALLED_VARIABLE))
                        ? IGNORE_INSTALLED_VARIABLE + "=true hides the installed ones"
                        : "Install Redis (e.g. apt-get install redis-server) or set " + ENV_VARIABLE + " to run a second version");
    }

    private static synchronized Resolved resolved() {
        // Failures are not cached: every caller gets the same clear IllegalStateException.
        if (resolved == null) {
            String unavailable = legUnavailableReason();
            if (unavailable != null) {
                throw new IllegalStateException(unavailable);
            }
            Resolved chosen = candidates().get(leg());
            if (chosen.executable() == null) {
                chosen = new Resolved(extract(chosen.resource()), chosen.source(), chosen.detail(), chosen.resource());
            }
            resolved = chosen;
        }
        return resolved;
    }

    private static synchronized List<Resolved> candidates() {
        if (candidates == null) {
            candidates = candidates(System.getenv(), System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        }
        return candidates;
    }

    static List<Resolved> candidates(Map<String, String> env, String osName, String osArch) {
        List<Resolved> found = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        String fromEnv = env.get(ENV_VARIABLE);
        if (fromEnv != null && !fromEnv.isBlank()) {
            addOnce(found, seen, checkEnvironmentValue(fromEnv), Source.ENVIRONMENT_VARIABLE,
                    "from environment variable " + ENV_VARIABLE);
        }
        if (!Boolean.parseBoolean(env.get(IGNORE_INSTALLED_VARIABLE))) {
            Path onPath = findOnPath(env.get("PATH"), osName);
            if (onPath != null) {
                addOnce(found, seen, onPath, Source.PATH, "found on the PATH");
            }
            for (String location : KNOWN_LOCATIONS) {
                Path candidate = Path.of(location);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    addOnce(found, seen, candidate, Source.KNOWN_LOCATION, "found at a usual install location");
                }
            }
        }
        try {
            String resource = embeddedResourceName(osName, osArch);
            found.add(new Resolved(null, Source.EMBEDDED_REDIS_JAR,
                    "extracted from the embedded-redis classpath resource " + resource, resource));
        }
        catch (IllegalStateException noEmbeddedBinary) {
            if (found.isEmpty()) {
                throw noEmbeddedBinary;
            }
        }
        return List.copyOf(found);
    }

    /** Adds the executable unless the same file (through symlinks too) is already a candidate. */
    private static void addOnce(List<Resolved> found, Set<Path> seen, Path executable, Source source, String detail) {
        Path real;
        try {
            real = executable.toRealPath();
        }
        catch (IOException ex) {
            real = executable.toAbsolutePath().normalize();
        }
        if (seen.add(real)) {
            found.add(new Resolved(executable, source, detail, null));
        }
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
