package io.github.redislock.benchmarks.clients;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.jar.JarFile;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * redis-lock as an earlier commit built it, wired as {@link RedisLockClient} wires the current one: that
 * commit's {@code lock-autoconfigure} jar is loaded into a class loader of its own that looks up the
 * library's classes and Lua scripts there first and everything else (Spring, Lettuce) here. So the old
 * and the current library run alternately in one JVM, against one Redis, over the same driver: the
 * comparison sees the library's difference and nothing of the build around it.
 */
final class BaselineRedisLockClient implements LockClient {

    /** The id on the command line; only known when {@code --baseline-jar} names a jar. */
    static final String ID = "redis-lock-baseline";

    private static final String PREFIX = "lock:";

    private final LettuceConnectionFactory connectionFactory;
    private final Object locker;
    private final BaselineLibrary library;
    private final MethodHandle lock;
    private final MethodHandle unlock;
    private final MethodHandle close;

    private BaselineRedisLockClient(BaselineLibrary library, LockImplementation.ClientSettings settings) {
        settings.requireStandalone("the baseline redis-lock");
        connectionFactory = Connections.lettuceFactory(settings);
        try {
            locker = library.newLocker(connectionFactory, settings.watchdogTimeout());
        } catch (RuntimeException e) {
            connectionFactory.destroy();
            throw e;
        }
        this.library = library;
        lock = library.lock.bindTo(locker);
        unlock = library.unlock.bindTo(locker);
        close = library.close.bindTo(locker);
    }

    /**
     * @param jar   the earlier commit's {@code lock-autoconfigure} jar
     * @param label how the report names that commit, e.g. its short hash
     * @throws IllegalArgumentException naming {@code --baseline-jar} when the file is not a redis-lock library jar
     */
    static LockImplementation implementation(Path jar, String label) {
        BaselineLibrary library = new BaselineLibrary(jar);
        return new LockImplementation(ID, "redis-lock at " + label + " (baseline)", settings -> new BaselineRedisLockClient(library, settings));
    }

    @Override
    public void lock(String key) {
        call(lock, key);
    }

    @Override
    public void unlock(String key) {
        call(unlock, key);
    }

    @Override
    public void lockRenewed(String key) {
        call(lock, key);
    }

    /** The baseline's own wait queue key, so that the waiters scenario starts its release as it does for redis-lock. */
    @Override
    public Optional<String> waitQueueKey(String key) {
        return library.waitQueueKey(key);
    }

    @Override
    public void close() {
        try {
            close.invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("The baseline redis-lock failed to close", e);
        } finally {
            connectionFactory.destroy();
        }
    }

    private static void call(MethodHandle method, String key) {
        try {
            method.invokeExact(key);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("The baseline redis-lock failed on key '" + key + "'", e);
        }
    }

    /** The earlier library in its own class loader, loaded once so that the JIT's work on it lasts the run. */
    private static final class BaselineLibrary {

        private static final String LOCKER = "io.github.redislock.core.RedisLocker";

        private final ClassLoader loader;
        private final MethodHandle lock;
        private final MethodHandle unlock;
        private final MethodHandle close;

        BaselineLibrary(Path jar) {
            if (!Files.isRegularFile(jar) || !containsLocker(jar)) {
                throw new IllegalArgumentException("--baseline-jar=" + jar + " is not a redis-lock lock-autoconfigure jar (no "
                        + LOCKER + " in it); build one with ./mvnw -pl lock-autoconfigure -am package -DskipTests at the baseline commit");
            }
            try {
                loader = new LibraryFirstClassLoader(jar.toUri().toURL(), BaselineRedisLockClient.class.getClassLoader());
                Class<?> api = loader.loadClass("io.github.redislock.Locker");
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                lock = lookup.findVirtual(api, "lock", MethodType.methodType(void.class, String.class));
                unlock = lookup.findVirtual(api, "unlock", MethodType.methodType(void.class, String.class));
                close = lookup.findVirtual(loader.loadClass(LOCKER), "close", MethodType.methodType(void.class));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("--baseline-jar=" + jar + " has no usable Locker API: " + e, e);
            }
        }

        /** {@code RedisLocker.builder(factory).keyPrefix(PREFIX).watchdogTimeout(timeout).build()}, through reflection. */
        Object newLocker(RedisConnectionFactory factory, Duration watchdogTimeout) {
            try {
                Object builder = loader.loadClass(LOCKER).getMethod("builder", RedisConnectionFactory.class).invoke(null, factory);
                builder = builder.getClass().getMethod("keyPrefix", String.class).invoke(builder, PREFIX);
                builder = builder.getClass().getMethod("watchdogTimeout", Duration.class).invoke(builder, watchdogTimeout);
                return builder.getClass().getMethod("build").invoke(builder);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("The baseline redis-lock could not be built: " + e.getCause(), e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("The baseline redis-lock has no RedisLocker.builder(...).keyPrefix/watchdogTimeout/build: " + e, e);
            }
        }

        /** {@code LockKeys.of(PREFIX, key).waitQueue()} of the baseline; empty for a baseline that names its keys otherwise. */
        Optional<String> waitQueueKey(String key) {
            try {
                Class<?> keys = loader.loadClass("io.github.redislock.core.script.LockKeys");
                Object lockKeys = keys.getMethod("of", String.class, String.class).invoke(null, PREFIX, key);
                return Optional.of((String) keys.getMethod("waitQueue").invoke(lockKeys));
            } catch (ReflectiveOperationException | ClassCastException e) {
                return Optional.empty();
            }
        }

        private static boolean containsLocker(Path jar) {
            try (JarFile file = new JarFile(jar.toFile())) {
                return file.getEntry(LOCKER.replace('.', '/') + ".class") != null;
            } catch (IOException e) {
                return false;
            }
        }
    }

    /**
     * Looks up a class or resource of redis-lock ({@code io/github/redislock/...}) in the baseline jar before its
     * parent, which holds the current library under the same names; everything else the parent's way.
     */
    private static final class LibraryFirstClassLoader extends URLClassLoader {

        private static final String LIBRARY = "io.github.redislock.";

        static {
            registerAsParallelCapable();
        }

        LibraryFirstClassLoader(URL jar, ClassLoader parent) {
            super(new URL[] {jar}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(LIBRARY)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    try {
                        loaded = findClass(name);
                    } catch (ClassNotFoundException notInTheJar) {
                        loaded = super.loadClass(name, false);
                    }
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = name.startsWith(LIBRARY.replace('.', '/')) ? findResource(name) : null;
            return own != null ? own : super.getResource(name);
        }
    }
}
