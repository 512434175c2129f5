package io.github.redislock.reliability;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLocker;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An application instance on a Redis Cluster that waits for one lock, run as its own JVM so a test can pause it while the lock
 * is handed to it and close its Locker (its shutdown hook, on {@code kill -TERM}) as it resumes.
 *
 * <p>Arguments: {@code clusterNodes(comma-separated) key watchdogMillis}.
 */
public final class ClusterWaiter {

    private ClusterWaiter() {
    }

    public static void main(String[] args) throws Exception {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3))); // never outlive the test JVM
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(Arrays.asList(args[0].split(","))),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        RedisLocker locker = RedisLocker.builder(factory).watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2]))).build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("closing");
            locker.close();
            System.out.println("closed, holding " + locker.heldLockCount());
        }));
        boolean acquired = locker.tryLock(args[1], 60_000, -1, TimeUnit.MILLISECONDS);
        System.out.println("acquired=" + acquired);
    }
}
