package io.github.redislock;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * Several plain locks taken all or nothing: the calling thread holds every key or none. Keys in one
 * Redis Cluster hash slot (give them one hash tag, such as {@code {order-42}:stock}) are taken by one
 * script call; other keys are taken slot by slot in a fixed order, and what was taken is given back
 * when a later key is held elsewhere. Each key is reentrant and interoperates with
 * {@link Locker#lock(String)} on the same key.
 */
public interface RedisMultiLock extends Lock {

    /** The distinct keys, in the order they are taken. */
    List<String> getKeys();

    /**
     * The fencing token of the calling thread's hold on {@code key}, one of {@link #getKeys()}; see
     * {@link RedisLock#fencingToken()}.
     */
    long fencingToken(String key);

    /** Like {@link RedisLock#tryLock(long, long, TimeUnit)}, for every key at once. */
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;
}
