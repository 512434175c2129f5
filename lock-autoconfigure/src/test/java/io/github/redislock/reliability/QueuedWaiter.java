package io.github.redislock.reliability;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockerFixture;

/**
 * An application instance that does nothing but wait for one lock, run as its own JVM so a test can
 * kill it with {@code kill -9} while it is queued.
 *
 * <p>Arguments: {@code lockPort key leaseMillis watchdogMillis}.
 */
public final class QueuedWaiter {

    private QueuedWaiter() {
    }

    public static void main(String[] args) throws Exception {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3))); // never outlive the test JVM
        LockerFixture instance = LockerFixture.connect("127.0.0.1", Integer.parseInt(args[0]), Duration.ofMillis(Long.parseLong(args[3])));
        boolean acquired = instance.locker.tryLock(args[1], 60_000, Long.parseLong(args[2]), TimeUnit.MILLISECONDS);
        System.out.println("acquired=" + acquired);
        Runtime.getRuntime().halt(0);
    }
}
