package io.github.redislock.core.wait;

import io.github.redislock.core.pubsub.Waiting;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** What a {@link LockWait} asks of the locker it waits in. */
public interface WaitHost {

    /** Bounds an outage a wait rides out, and the look again at a lock whose key has no expiry. */
    Duration watchdogTimeout();

    boolean isClosed();

    /** A wait began: a closing locker stops it, and waits for it to end. */
    void started(LockWait wait);

    void ended(LockWait wait);

    /** Joins a lock's release channel: completes once Redis confirmed it, or fails naming the lock; never waits. */
    CompletableFuture<Waiting> join(String channel, String waitName, String what, Runnable onWake);
}
