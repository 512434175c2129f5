package io.github.redislock.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Finds every distinct {@code redis-server} of this machine, in the order {@link RedisBinary}
 * documents: the environment variable, the {@code PATH}, the usual install locations, the
 * embedded-redis jar; and, apart from them, every distinct {@code valkey-server} (its environment
 * variable, the {@code PATH}, the usual install locations: there is no embedded Valkey).
 *
 * <p>Why a pure function of the environment and platform: the order and the de-duplication decide
 * which server each leg of the server matrix tests, so they are tested with made-up environments.
 */
final class RedisBinaryCandidates {

    /** Where Redis and Valkey are usually installed (Debian/Ubuntu packages, source builds, Homebrew). */
    static final List<String> KNOWN_DIRECTORIES = List.of("/usr/bin", "/usr/local/bin", "/opt/homebrew/bin");

    private static final String REDIS_EXECUTABLE = "redis-server";
    private static final String VALKEY_EXECUTABLE = "valkey-server";

    private RedisBinaryCandidates() {
    }

    /**
     * The candidates for the given environment variables and platform, each real file once.
     *
     * @throws IllegalStateException if {@value RedisBinary#ENV_VARIABLE} names no executable file, or
     *     if nothing is installed and the embedded jar has no binary for the platform
     */
    static List<RedisBinaryCandidate> find(Map<String, String> env, String osName, String osArch) {
        List<RedisBinaryCandidate> found = installed(env, osName, RedisBinary.ENV_VARIABLE, REDIS_EXECUTABLE);
        try {
            String resource = EmbeddedRedisBinary.resourceName(osName, osArch);
            found.add(new RedisBinaryCandidate(null, RedisBinary.Source.EMBEDDED_REDIS_JAR,
                    "extracted from the embedded-redis classpath resource " + resource, resource));
        }
        catch (IllegalStateException noEmbeddedBinary) {
            if (found.isEmpty()) {
                throw noEmbeddedBinary;
            }
        }
        return List.copyOf(found);
    }

    /**
     * The {@code valkey-server} candidates for the given environment variables and platform, each real
     * file once: {@value RedisBinary#VALKEY_ENV_VARIABLE}, the {@code PATH}, the usual install locations.
     *
     * @throws IllegalStateException if {@value RedisBinary#VALKEY_ENV_VARIABLE} names no executable file
     */
    static List<RedisBinaryCandidate> findValkey(Map<String, String> env, String osName) {
        return List.copyOf(installed(env, osName, RedisBinary.VALKEY_ENV_VARIABLE, VALKEY_EXECUTABLE));
    }

    /** The executable named by {@code variable}, then the installed ones called {@code executableName}. */
    private static List<RedisBinaryCandidate> installed(Map<String, String> env, String osName, String variable,
            String executableName) {
        List<RedisBinaryCandidate> found = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        String fromEnv = env.get(variable);
        if (fromEnv != null && !fromEnv.isBlank()) {
            addOnce(found, seen, checkEnvironmentValue(variable, fromEnv, executableName), RedisBinary.Source.ENVIRONMENT_VARIABLE,
                    "from environment variable " + variable);
        }
        if (!Boolean.parseBoolean(env.get(RedisBinary.IGNORE_INSTALLED_VARIABLE))) {
            Path onPath = findOnPath(env.get("PATH"), osName, executableName);
            if (onPath != null) {
                addOnce(found, seen, onPath, RedisBinary.Source.PATH, "found on the PATH");
            }
            for (String directory : KNOWN_DIRECTORIES) {
                Path candidate = Path.of(directory, executableName);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    addOnce(found, seen, candidate, RedisBinary.Source.KNOWN_LOCATION, "found at a usual install location");
                }
            }
        }
        return found;
    }

    /** Adds the executable unless the same file (through symlinks too) is already a candidate. */
    private static void addOnce(List<RedisBinaryCandidate> found, Set<Path> seen, Path executable,
            RedisBinary.Source source, String detail) {
        Path real;
        try {
            real = executable.toRealPath();
        }
        catch (IOException ex) {
            real = executable.toAbsolutePath().normalize();
        }
        if (seen.add(real)) {
            found.add(new RedisBinaryCandidate(executable, source, detail, null));
        }
    }

    private static Path checkEnvironmentValue(String variable, String value, String executableName) {
        Path candidate;
        try {
            candidate = Path.of(value);
        }
        catch (InvalidPathException ex) {
            throw new IllegalStateException("Environment variable " + variable + " is set to '"
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
        throw new IllegalStateException("Environment variable " + variable + " is set to '" + value
                + "' but " + problem + "; point it to a " + executableName + " executable or unset it");
    }

    private static Path findOnPath(String pathVariable, String osName, String executableName) {
        if (pathVariable == null || pathVariable.isBlank()) {
            return null;
        }
        boolean windows = osName.toLowerCase(Locale.ROOT).contains("win");
        String[] names = windows
                ? new String[] {executableName + ".exe", executableName}
                : new String[] {executableName};
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
                    // A malformed PATH entry cannot contain the executable; keep looking.
                }
            }
        }
        return null;
    }
}
