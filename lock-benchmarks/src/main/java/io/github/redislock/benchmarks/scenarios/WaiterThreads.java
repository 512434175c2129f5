package io.github.redislock.benchmarks.scenarios;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Threads for thousands of waiters: virtual threads where the JDK has them (21+), platform threads
 * otherwise. The module is compiled for Java 17, so the virtual-thread executor is looked up at run time.
 *
 * @param virtual whether {@link #newExecutor()} starts virtual threads
 */
record WaiterThreads(boolean virtual) {

    static WaiterThreads available() {
        try {
            Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
            return new WaiterThreads(true);
        } catch (NoSuchMethodException e) {
            return new WaiterThreads(false);
        }
    }

    /** A thread per task: virtual ones, or daemon platform threads. */
    ExecutorService newExecutor() {
        if (virtual) {
            try {
                return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("This JDK lists newVirtualThreadPerTaskExecutor but could not call it", e);
            }
        }
        return Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "waiter");
            thread.setDaemon(true);
            return thread;
        });
    }

    String describe() {
        return virtual ? "virtual threads (JDK " + Runtime.version().feature() + ")" : "platform threads (JDK " + Runtime.version().feature() + " has no virtual threads)";
    }
}
