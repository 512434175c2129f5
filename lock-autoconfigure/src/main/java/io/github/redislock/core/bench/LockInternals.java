package io.github.redislock.core.bench;

import io.github.redislock.LockObserver;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import org.springframework.context.ApplicationEventPublisher;

/** The benchmarks' seam into the library (see the package-info), so that they need no class in its packages. */
public final class LockInternals {

    private static volatile LockerParts lockers;

    private LockInternals() {
    }

    /** A RedisLocker over the given parts, which it owns, wired as {@link io.github.redislock.core.RedisLockerBuilder} wires it. */
    public static RedisLocker locker(LockCommands commands, LockWatchdog watchdog, ReleaseSubscriptions subscriptions,
                                     String keyPrefix, ApplicationEventPublisher events, LockObserver observer) {
        if (lockers == null) { // RedisLocker's class initializer installs its constructor here
            try {
                Class.forName(RedisLocker.class.getName(), true, RedisLocker.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return lockers.create(commands, watchdog, subscriptions, keyPrefix, events, observer);
    }

    /** Called once by {@link RedisLocker} as its class loads, handing over its constructor, which stays out of its public surface. */
    public static void install(LockerParts constructor) {
        lockers = constructor;
    }

    @FunctionalInterface
    public interface LockerParts {

        RedisLocker create(LockCommands commands, LockWatchdog watchdog, ReleaseSubscriptions subscriptions,
                           String keyPrefix, ApplicationEventPublisher events, LockObserver observer);
    }
}
