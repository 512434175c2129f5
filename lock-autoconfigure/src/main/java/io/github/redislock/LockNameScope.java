package io.github.redislock;

/**
 * The name metrics and traces give to locks the calling thread takes right now, so that
 * {@code @DistributedLock} can name them after the annotated method (or its {@code name}) without
 * putting the lock key into a tag. Outside a scope, a {@code LockNamer} names them.
 */
public final class LockNameScope {

    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private LockNameScope() {
    }

    /**
     * Names what the thread locks until {@link #exit}; scopes nest.
     *
     * @return the name to restore on exit
     */
    public static String enter(String name) {
        String previous = CURRENT.get();
        CURRENT.set(name);
        return previous;
    }

    /** Ends a scope, restoring what {@link #enter} returned. */
    public static void exit(String previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }

    /** The name of the innermost scope the calling thread is in, or null: for Locker implementations and observers. */
    public static String current() {
        return CURRENT.get();
    }
}
