package io.github.redislock.core.hold;

import io.github.redislock.LockLostException;
import io.github.redislock.LockLostEvent;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes {@link LockLostEvent}s on a thread of their own. A loss is found on the watchdog's thread,
 * and listeners are application code: one that blocks (a slow call, a lock of its own) must not hold
 * up the renewal of every other lock, which would then be lost too.
 *
 * <p>One daemon thread, started when an event comes and ended after a minute without any, delivers
 * events in the order the losses were found. At most {@value #MAX_PENDING} wait for it; beyond that an
 * event is dropped with an ERROR naming the lock (the holder still learns of the loss: its unlock
 * throws {@link LockLostException}). Closed with its Locker: events already found are still delivered.
 */
public final class LostLockEvents implements AutoCloseable {

    static final int MAX_PENDING = 1000;

    private static final Log log = LogFactory.getLog(LostLockEvents.class);

    private final ApplicationEventPublisher events;
    private final ThreadPoolExecutor publisher;

    public LostLockEvents(ApplicationEventPublisher events) {
        this.events = events;
        this.publisher = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, new ArrayBlockingQueue<>(MAX_PENDING), task -> {
            Thread thread = new Thread(task, "redis-lock-lost-events");
            thread.setDaemon(true);
            return thread;
        }, (task, executor) -> log.error("Dropped " + task + ": " + MAX_PENDING + " lost-lock events wait for a listener that does not return"
                + (executor.isShutdown() ? " (the Locker is closed)" : "")));
        publisher.allowCoreThreadTimeOut(true);
    }

    /** Returns at once; the event reaches the listeners on the publishing thread. */
    public void publish(LockLostEvent event) {
        publisher.execute(new Delivery(events, event));
    }

    @Override
    public void close() {
        publisher.shutdown();
    }

    private record Delivery(ApplicationEventPublisher events, LockLostEvent event) implements Runnable {
        @Override
        public void run() {
            try {
                events.publishEvent(event);
            } catch (RuntimeException e) {
                log.warn("A listener of " + event + " failed", e);
            }
        }

        @Override
        public String toString() {
            return "the " + event;
        }
    }
}
