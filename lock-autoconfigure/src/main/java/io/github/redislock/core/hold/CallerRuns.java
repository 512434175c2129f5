package io.github.redislock.core.hold;

import io.github.redislock.core.connection.CallerConnections;
import io.github.redislock.core.script.ScriptTransport;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Makes a synchronous call a wait on its asynchronous one: what the call hands its executor (settling a
 * hold once Redis answered) runs, in order, on the thread that waits, never on the event loop; the thread may send
 * on a connection of its own meanwhile ({@link CallerConnections}).
 */
public final class CallerRuns implements Executor {

    private final Thread caller = Thread.currentThread();
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

    /** Unparks the caller, unless it runs this itself: a permit left over would cut its next park short. */
    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        if (Thread.currentThread() != caller) {
            LockSupport.unpark(caller);
        }
    }

    /**
     * Starts {@code call} with an executor whose tasks run on the calling thread, and waits for its result, which completes
     * in one of them (after a reply) or before the call returns; an interrupt is kept for the caller (Redis runs the call all the same).
     */
    public static <T> T await(Function<Executor, CompletableFuture<T>> call) {
        CallerRuns runs = new CallerRuns();
        boolean marked = CallerConnections.callerWaits(true);
        CompletableFuture<T> result;
        boolean interrupted = false;
        try {
            result = call.apply(runs);
            for (Runnable task; (task = runs.tasks.poll()) != null || !result.isDone(); ) {
                if (task != null) {
                    task.run();
                } else {
                    LockSupport.park(runs); // an unpark given since the poll returns at once
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            CallerConnections.callerWaits(marked);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            return result.join();
        } catch (CompletionException e) {
            throw ScriptTransport.unchecked(e);
        }
    }
}
