package io.github.redislock.testsupport;

import java.nio.file.Path;
import java.util.List;

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
 *   <li>{@code redis-server} in the usual install locations ({@code /usr/bin}, {@code /usr/local/bin},
 *       {@code /opt/homebrew/bin}), for a
 *       build whose {@code PATH} is narrower than the shell's;</li>
 *   <li>the binary shipped as a classpath resource by {@code com.github.codemonstur:embedded-redis}
 *       (an optional dependency of this module: add it to use this fallback),
 *       chosen by {@code os.name}/{@code os.arch} and extracted to a temporary directory that is
 *       deleted when the JVM exits.</li>
 * </ol>
 * An empty or blank {@value #ENV_VARIABLE} counts as unset. With {@value #IGNORE_INSTALLED_VARIABLE}
 * set to {@code true} the {@code PATH} and the install locations are not searched, which is how a
 * machine without an installed Redis is reproduced on one that has it.
 *
 * <p>The server matrix: a JVM uses one server, its <em>leg</em>, named by the system property
 * {@value #LEG_PROPERTY}: an index into the list above (0, the first candidate, when unset), or
 * {@value #VALKEY_LEG} for the first {@code valkey-server} found ({@value #VALKEY_ENV_VARIABLE}, then
 * the {@code PATH}, then the usual install locations; Valkey has no embedded fallback). The build runs
 * the whole suite on leg 0, a chosen set of suites again on leg 1, and the whole suite again on the
 * Valkey leg (see the {@code server-matrix} and {@code server-matrix-valkey} executions in
 * {@code lock-autoconfigure/pom.xml}), so with an installed Redis and Valkey all three are tested. A
 * leg with no server is skipped (see {@link #legUnavailableReason()}).
 *
 * <p>Plain JDK only (no Spring, no Lettuce) so a non-test main such as the benchmarks can use it.
 */
public final class RedisBinary {

    /** Environment variable that names the {@code redis-server} executable to use. */
    public static final String ENV_VARIABLE = "REDIS_SERVER";

    /** Environment variable that, set to {@code true}, hides every installed {@code redis-server}. */
    public static final String IGNORE_INSTALLED_VARIABLE = "REDIS_SERVER_IGNORE_INSTALLED";

    /** Environment variable that names the {@code valkey-server} executable of the Valkey leg. */
    public static final String VALKEY_ENV_VARIABLE = "VALKEY_SERVER";

    /** System property naming the leg this JVM uses: the index of a redis-server candidate, or {@value #VALKEY_LEG}. */
    public static final String LEG_PROPERTY = "redislock.test.server-leg";

    /** The value of {@value #LEG_PROPERTY} that selects the first {@code valkey-server} found. */
    public static final String VALKEY_LEG = "valkey";

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

    private static List<RedisBinaryCandidate> candidates;
    private static List<RedisBinaryCandidate> valkeyCandidates;
    private static RedisBinaryCandidate resolved;
    private static RedisServerVersion version;

    private RedisBinary() {
    }

    /**
     * The {@code redis-server} executable to start, resolved on first call.
     *
     * @return the executable file
     * @throws IllegalStateException if {@value #ENV_VARIABLE} is set to something that is not an
     *     executable file, if no binary can be found or extracted for this platform, or if this
     *     JVM's leg has no candidate (see {@link #legUnavailableReason()})
     */
    public static Path path() {
        return resolved().executable();
    }

    /**
     * Where {@link #path()} came from.
     *
     * @return the source of the executable
     */
    public static Source source() {
        return resolved().source();
    }

    /** Whether this JVM's leg is the Valkey one ({@value #VALKEY_LEG}). */
    private static boolean isValkeyLeg() {
        return VALKEY_LEG.equals(leg());
    }

    /**
     * Whether the server this JVM tests is Valkey, as its {@code --version} says: on the Valkey leg,
     * and on any leg whose {@value #ENV_VARIABLE} names a {@code valkey-server}.
     *
     * @return true for Valkey
     */
    public static boolean isValkey() {
        return reported().isValkey();
    }

    /**
     * The server version reported by {@code redis-server --version} (e.g. {@code 6.2.11}),
     * computed once. Never throws: on failure it returns {@code "unknown (<reason>)"}.
     *
     * @return the version
     */
    public static String version() {
        return reported().version();
    }

    private static synchronized RedisServerVersion reported() {
        if (version == null) {
            version = RedisServerVersion.of(path());
        }
        return version;
    }

    /**
     * The server this JVM tests, as reports name it: {@code redis-server 7.0.15} or {@code valkey-server 8.0.1}.
     *
     * @return the executable's kind and its version
     */
    public static String nameAndVersion() {
        return reported().name() + " " + reported().version();
    }

    /**
     * One line for logs saying which binary was chosen, why, and its version, for example
     * {@code redis-server 6.2.11 at /tmp/x/redis-server-6.2.6-v5-linux-amd64 (extracted from the
     * embedded-redis classpath resource redis-server-6.2.6-v5-linux-amd64)}.
     *
     * @return the description
     */
    public static String describe() {
        RedisBinaryCandidate r = resolved();
        return nameAndVersion() + " at " + r.executable() + " (" + r.detail() + ", matrix leg " + leg() + ")";
    }

    /**
     * This JVM's leg: the index of the redis-server candidate it uses, or {@value #VALKEY_LEG}.
     *
     * @return the value of {@value #LEG_PROPERTY}, {@code "0"} when unset
     * @throws IllegalStateException if {@value #LEG_PROPERTY} is neither a non-negative integer nor {@value #VALKEY_LEG}
     */
    public static String leg() {
        String value = System.getProperty(LEG_PROPERTY, "").trim();
        if (value.isEmpty()) {
            return "0";
        }
        if (value.equals(VALKEY_LEG)) {
            return VALKEY_LEG;
        }
        try {
            if (Integer.parseInt(value) >= 0) {
                return String.valueOf(Integer.parseInt(value));
            }
        }
        catch (NumberFormatException ignored) {
            // Reported below.
        }
        throw new IllegalStateException("System property " + LEG_PROPERTY + " is '" + value
                + "'; it must be the index (0, 1, ...) of a redis-server candidate or '" + VALKEY_LEG + "'");
    }

    /**
     * Whether this JVM runs the first leg, whose results the documents quote.
     *
     * @return true on leg 0
     */
    public static boolean isFirstLeg() {
        return leg().equals("0");
    }

    /**
     * Why this JVM's leg cannot run, naming what was found, or null when it can. Leg 0 always has a
     * candidate where the embedded jar has a binary for this platform; the Valkey leg has one where
     * Valkey is installed.
     *
     * @return the reason, or null
     */
    public static synchronized String legUnavailableReason() {
        boolean ignoreInstalled = Boolean.parseBoolean(System.getenv(IGNORE_INSTALLED_VARIABLE));
        if (isValkeyLeg()) {
            return valkeyCandidates().isEmpty()
                    ? "matrix leg " + VALKEY_LEG + " has no valkey-server: " + (ignoreInstalled
                            ? IGNORE_INSTALLED_VARIABLE + "=true hides the installed ones"
                            : "none on the PATH or at a usual install location. Install Valkey (e.g. apt-get install -t "
                                    + "bookworm-backports valkey-server on Debian 12) or set " + VALKEY_ENV_VARIABLE + " to run it")
                    : null;
        }
        List<RedisBinaryCandidate> all = candidates();
        int leg = Integer.parseInt(leg());
        if (leg < all.size()) {
            return null;
        }
        StringBuilder found = new StringBuilder();
        for (RedisBinaryCandidate candidate : all) {
            found.append(found.length() == 0 ? "" : "; ").append(candidate.describe());
        }
        return "matrix leg " + leg + " has no redis-server: only " + all.size() + " distinct one(s) found (" + found
                + "), and leg 0 runs the first. " + (ignoreInstalled
                        ? IGNORE_INSTALLED_VARIABLE + "=true hides the installed ones"
                        : "Install Redis (e.g. apt-get install redis-server) or set " + ENV_VARIABLE + " to run a second version");
    }

    private static synchronized RedisBinaryCandidate resolved() {
        // Failures are not cached: every caller gets the same clear IllegalStateException.
        if (resolved == null) {
            String unavailable = legUnavailableReason();
            if (unavailable != null) {
                throw new IllegalStateException(unavailable);
            }
            RedisBinaryCandidate chosen = isValkeyLeg() ? valkeyCandidates().get(0) : candidates().get(Integer.parseInt(leg()));
            if (chosen.executable() == null) {
                chosen = chosen.extractedTo(EmbeddedRedisBinary.extract(chosen.resource()));
            }
            resolved = chosen;
        }
        return resolved;
    }

    private static synchronized List<RedisBinaryCandidate> candidates() {
        if (candidates == null) {
            candidates = RedisBinaryCandidates.find(System.getenv(), System.getProperty("os.name", ""),
                    System.getProperty("os.arch", ""));
        }
        return candidates;
    }

    private static synchronized List<RedisBinaryCandidate> valkeyCandidates() {
        if (valkeyCandidates == null) {
            valkeyCandidates = RedisBinaryCandidates.findValkey(System.getenv(), System.getProperty("os.name", ""));
        }
        return valkeyCandidates;
    }
}
