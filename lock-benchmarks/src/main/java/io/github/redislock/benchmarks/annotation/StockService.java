package io.github.redislock.benchmarks.annotation;

import com.baomidou.lock.annotation.Lock4j;

import io.github.redislock.annotation.DistributedLock;

/**
 * The bean whose methods scenario 4 calls: the same tiny body behind each way of locking it. The
 * unlocked body is {@link #body}; the direct variants wrap it in {@code Locker} or lock4j's
 * {@code LockTemplate} calls by hand.
 */
public class StockService {

    /** The redis-lock key of {@link #reserve}, written by hand the same way. */
    public static String lockKey(String sku) {
        return "stock:" + sku;
    }

    /** The lock4j key {@link #reserveWithLock4j} ends up with, written by hand for its direct variant. */
    public static String lock4jKey(String sku) {
        return "lock4j:" + StockService.class.getName() + "reserveWithLock4j#" + sku;
    }

    /** Fixed lease of both lock4j variants: its renewal mode (expire -1, the annotation's default) starts a timer thread per acquisition. */
    public static final long LOCK4J_EXPIRE_MILLIS = 30_000;

    /** Stands for the work done under the lock; cheap on purpose, so the figures are the locking's. */
    public static int body(String sku, int quantity) {
        return sku.length() * quantity;
    }

    @DistributedLock(key = "'stock:' + #sku")
    public int reserve(String sku, int quantity) {
        return body(sku, quantity);
    }

    @Lock4j(keys = "#sku", expire = LOCK4J_EXPIRE_MILLIS)
    public int reserveWithLock4j(String sku, int quantity) {
        return body(sku, quantity);
    }

    /** Goes through the same proxy and a do-nothing interceptor: the cost of the AOP hop alone. */
    @PassThrough
    public int reservePassThrough(String sku, int quantity) {
        return body(sku, quantity);
    }
}
