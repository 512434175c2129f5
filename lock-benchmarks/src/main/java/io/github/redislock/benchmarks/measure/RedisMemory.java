package io.github.redislock.benchmarks.measure;

import io.github.redislock.testsupport.RedisServerProcess;

/** Bytes the Redis server has allocated ({@code INFO memory}, {@code used_memory}), to see what a queued waiter or a held lock costs it. */
public final class RedisMemory {

    private RedisMemory() {
    }

    public static long usedBytes(RedisServerProcess redis) {
        return Long.parseLong(redis.info("memory").getOrDefault("used_memory", "0"));
    }
}
