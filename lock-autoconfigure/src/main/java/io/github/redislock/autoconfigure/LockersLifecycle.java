package io.github.redislock.autoconfigure;

import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.core.RedisLocker;

import java.util.function.Supplier;
import java.util.stream.Stream;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Closes the context's lockers when it closes, one lifecycle phase before their connection factory
 * stops: the waits still pending withdraw their places in the wait queues, holders still running
 * (a Spring Integration leader whose initiator was just stopped) release their locks, and the release
 * subscriptions' pub/sub connection closes, while the factory still works.
 *
 * <p>Why: Spring Data Redis stops its connection factory (a {@link SmartLifecycle}) in the lifecycle
 * phase of the context's shutdown, before any bean is destroyed. Closed only when their beans are
 * destroyed, the lockers would withdraw their waits through a stopped factory; the withdrawal fails, the
 * place stays queued, and the holder's unlock hands the lock to a wait that is gone: the key stays taken
 * for the claim lease (up to the watchdog timeout) on every rolling restart with a waiting thread. The
 * pub/sub connection, closed that late, is also logged as a WARN by Lettuce or the pool. The lockers'
 * own {@code close()}, when their beans are destroyed afterwards, then has nothing left to do.
 *
 * <p>Web servers stop in higher phases (graceful shutdown first), so requests still running finish and
 * release their locks before this; the connection factory (phase 0 on Spring Data Redis 3.5 and 4.x) stops
 * after it. A context that only stops, to start again (a checkpoint, {@code context.stop()}), keeps its
 * lockers: they let holders release and waits withdraw as on a close (a stopped initiator's leader unlocks,
 * so its role passes on at once, not at the end of its lease), then only the pub/sub connection closes, and
 * opens again on the start when waits went on meanwhile. Redlock's locker is not
 * closed here: it queues nowhere and closes its masters' connection factories itself, after it.
 */
final class LockersLifecycle extends BeforeRedisStops implements ApplicationListener<ContextClosedEvent> {

    private final ApplicationContext context;
    private final Supplier<Stream<RedisLocker>> lockers;
    private final Supplier<Stream<RedisAsyncLocker>> asyncLockers;
    /** Set when this context starts closing, which Spring announces before it stops the lifecycle beans. */
    private volatile boolean closing;

    /**
     * @param lockers      the lockers to close (or only disconnect, on a stop without close)
     * @param asyncLockers the async lockers over them, closed first: each closes its locker, its threads last
     * @param steps        how many phases before the connection factory's it stops
     */
    LockersLifecycle(ApplicationContext context, Supplier<Stream<RedisLocker>> lockers, Supplier<Stream<RedisAsyncLocker>> asyncLockers,
                     RedisConnectionFactory connectionFactory, int steps) {
        super(connectionFactory, steps);
        this.context = context;
        this.lockers = lockers;
        this.asyncLockers = asyncLockers;
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() == context) { // a child context's closing reaches its parent's listeners too
            closing = true;
        }
    }

    /** A context started again after a stop: waits that went on meanwhile listen again. */
    @Override
    public void start() {
        super.start();
        lockers.get().forEach(RedisLocker::reconnectSubscriptions);
    }

    /** Every Redis locker of the context, the application's own included: any of them may have waits queued. */
    @Override
    void beforeRedisStops() {
        if (closing) {
            asyncLockers.get().forEach(RedisAsyncLocker::close); // closes its RedisLocker, letting its handles release
            lockers.get().forEach(RedisLocker::close); // waits for the waits, and lets holders release
        } else {
            lockers.get().forEach(RedisLocker::disconnectSubscriptions);
        }
    }
}
