package io.github.redislock.core.renewal;

import java.util.concurrent.ThreadFactory;

/** Every thread of redis-lock's own, the watchdog's too, is a daemon; here, in the lowest core package that starts one (no cycle). */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** Daemon threads named {@code name}: none keeps the JVM alive once the application's own threads ended. */
    public static ThreadFactory named(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
