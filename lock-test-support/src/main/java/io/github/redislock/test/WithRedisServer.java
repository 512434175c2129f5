package io.github.redislock.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated test class a real {@code redis-server} of its own, on {@code 127.0.0.1} and a
 * free port, and points the application under test at it.
 *
 * <pre>{@code
 * @SpringBootTest
 * @WithRedisServer
 * class CheckoutTest {
 *
 *     @Test
 *     void takesTheLock(RunningRedisServer redis) {
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>Why a real server rather than a mock or a fake: a lock's correctness lives in Redis itself (Lua
 * scripts, key expiry, pub/sub), so only a real server tests it. This one starts in well under a second
 * and needs no Docker engine.
 *
 * <p>What it does:
 * <ul>
 *   <li>starts the server before the class's first test (or earlier, when Spring needs its address to
 *       build the class's application context) and stops it after the class's last test, closing that
 *       application context first so nothing keeps talking to a stopped server;</li>
 *   <li>in a Spring test ({@code @SpringBootTest} and the other Spring test-context annotations), sets
 *       {@code spring.data.redis.host}, {@code spring.data.redis.port} and {@code spring.data.redis.url}
 *       of the class's application context to the server, above every other property source, so a
 *       Redis address in your own configuration is not used; your Sentinel or Cluster settings, if any,
 *       still win, so leave them out of the test configuration;</li>
 *   <li>injects the server as a {@link RunningRedisServer} parameter of test methods, lifecycle methods
 *       and constructors;</li>
 *   <li>shares the server with the class's {@code @Nested} classes.</li>
 * </ul>
 * Each annotated class gets its own server and hence its own application context.
 *
 * <p>The {@code redis-server} is found in this order: the file named by the environment variable
 * {@code REDIS_SERVER}, {@code redis-server} on the {@code PATH} or in the usual install locations, and
 * the binary inside {@code com.github.codemonstur:embedded-redis} (Redis 6.2 for Linux and macOS), which
 * you add as a test dependency to use that fallback. It runs without persistence in a temporary
 * directory; a shutdown hook ends it even if the test JVM exits early.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServerExtension.class)
public @interface WithRedisServer {
}
