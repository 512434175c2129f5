package io.github.redislock.benchmarks.measure;

import java.util.Map;

import io.github.redislock.testsupport.RedisServerProcess;

/** CPU seconds the Redis server used so far ({@code INFO cpu}, user + system), to see when Redis itself is the limit. */
public final class RedisCpu {

    private RedisCpu() {
    }

    public static double seconds(RedisServerProcess redis) {
        Map<String, String> cpu = redis.info("cpu");
        return Double.parseDouble(cpu.getOrDefault("used_cpu_user", "0")) + Double.parseDouble(cpu.getOrDefault("used_cpu_sys", "0"));
    }
}
