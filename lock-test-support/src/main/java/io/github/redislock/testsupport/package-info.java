/**
 * Real {@code redis-server} processes for tests: finding a binary ({@code REDIS_SERVER}, the PATH, else
 * the embedded-redis jar; {@code valkey-server} for the Valkey leg of the server matrix), starting one on a free loopback port, stopping, killing, pausing and
 * restarting it, talking to it over a small RESP client, starting a Cluster, and a reaper that ends
 * every process the JVM started, also when a test fails. redis-lock's own modules test with it; the
 * public {@link io.github.redislock.testsupport.RedisServerProcess},
 * {@link io.github.redislock.testsupport.RedisClusterProcesses}, {@link io.github.redislock.testsupport.RedisBinary}
 * and {@link io.github.redislock.testsupport.TestRedis} are what those tests use.
 */
package io.github.redislock.testsupport;
