package io.github.redislock.benchmarks.clients;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import io.github.redislock.LockHandle;
import io.github.redislock.ReactiveLocker;
import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.core.RedisReactiveLocker;

/**
 * This project's {@link ReactiveLocker} over the same wiring as {@link RedisLockClient}. The harness
 * calls from worker threads and waits for each {@code Mono}: the rows measure what the reactive path
 * costs per acquisition (its own threads send the Redis calls, settle the replies and deliver the result), not what it saves
 * in threads, which {@code docs/reactive.md} reports.
 */
final class ReactiveRedisLockClient implements LockClient {

    private final RedisLockClient blocking;
    private final RedisAsyncLocker async;
    private final ReactiveLocker reactive;
    /** Each worker thread's handles by key: the harness unlocks on the thread that locked. */
    private final ThreadLocal<Map<String, LockHandle>> handles = ThreadLocal.withInitial(HashMap::new);

    ReactiveRedisLockClient(LockImplementation.ClientSettings settings) {
        blocking = new RedisLockClient(settings);
        async = new RedisAsyncLocker(blocking.locker());
        reactive = new RedisReactiveLocker(async);
    }

    static LockImplementation implementation() {
        return new LockImplementation("redis-lock-reactive", "redis-lock (this project) ReactiveLocker", ReactiveRedisLockClient::new);
    }

    @Override
    public void lock(String key) {
        handles.get().put(key, reactive.acquire(key, null, null).block());
    }

    @Override
    public void unlock(String key) {
        LockHandle handle = handles.get().remove(key);
        if (handle == null) {
            throw new IllegalMonitorStateException("This thread holds no reactive lock on '" + key + "'");
        }
        reactive.release(handle).block();
    }

    @Override
    public void lockRenewed(String key) {
        lock(key);
    }

    @Override
    public Optional<String> waitQueueKey(String key) {
        return blocking.waitQueueKey(key);
    }

    @Override
    public void close() {
        async.close();
        blocking.close();
    }
}
