package io.github.redislock.benchmarks.report;

import java.time.ZonedDateTime;

/** What a reader needs to know to weigh the figures: the machine, the JVM, the Redis, the command. */
public record RunFacts(ZonedDateTime started, int cores, String os, String jdk, String redisVersion, String redisBinary,
                       String commandLine, String note, String durations) {
}
