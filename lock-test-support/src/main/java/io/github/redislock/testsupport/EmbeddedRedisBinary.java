package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * The {@code redis-server} binaries that {@code com.github.codemonstur:embedded-redis} 1.4.x ships as
 * classpath resources: which one fits this platform, and extracting it to run.
 *
 * <p>Why: it is the last resort of {@link RedisBinary}, so a machine without an installed Redis can
 * still build and test. The jar is an optional dependency: whoever relies on this fallback puts it on
 * their own classpath.
 */
final class EmbeddedRedisBinary {

    private EmbeddedRedisBinary() {
    }

    /**
     * The resource name for this platform.
     *
     * @throws IllegalStateException naming {@code os.name} and {@code os.arch} when the jar has none
     */
    static String resourceName(String osName, String osArch) {
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
        throw new IllegalStateException("No redis-server found: environment variable " + RedisBinary.ENV_VARIABLE
                + " is not set, redis-server is not on the PATH, and embedded-redis has no binary for os.name='"
                + osName + "', os.arch='" + osArch + "'. Install Redis or set " + RedisBinary.ENV_VARIABLE + ".");
    }

    /**
     * Copies the resource to an executable file in a temporary directory deleted at JVM exit.
     *
     * @throws IllegalStateException if the resource is not on the classpath (the jar is missing) or
     *     cannot be written out
     */
    static Path extract(String resource) {
        ClassLoader loader = EmbeddedRedisBinary.class.getClassLoader();
        InputStream in = loader == null ? null : loader.getResourceAsStream(resource);
        if (in == null && Thread.currentThread().getContextClassLoader() != null) {
            in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource);
        }
        if (in == null) {
            throw new IllegalStateException("No redis-server found: environment variable " + RedisBinary.ENV_VARIABLE
                    + " is not set, redis-server is not on the PATH, and the classpath resource '" + resource
                    + "' is missing (add com.github.codemonstur:embedded-redis 1.4.x to the test classpath, install Redis, or set "
                    + RedisBinary.ENV_VARIABLE + ")");
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
}
