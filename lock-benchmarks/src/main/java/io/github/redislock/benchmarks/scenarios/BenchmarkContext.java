package io.github.redislock.benchmarks.scenarios;

import java.io.PrintStream;
import java.util.List;

import io.github.redislock.benchmarks.BenchmarkOptions;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.testsupport.RedisServerProcess;

/**
 * What every scenario shares: the options, the one Redis all implementations run against, the
 * implementations chosen, and where progress goes.
 */
public record BenchmarkContext(BenchmarkOptions options, RedisServerProcess redis, List<LockImplementation> implementations,
                               boolean ceiling, PrintStream progress) {

    public LockImplementation.ClientSettings settings() {
        return new LockImplementation.ClientSettings(redis.host(), redis.port(), options.watchdogTimeout(), options.lease());
    }

    public LockImplementation.ClientSettings renewalSettings() {
        return new LockImplementation.ClientSettings(redis.host(), redis.port(), options.renewalWatchdogTimeout(), options.lease());
    }

    public void log(String line) {
        progress.println(line);
        progress.flush();
    }
}
