package io.github.redislock.reliability;

import java.time.Duration;

import io.github.redislock.core.LockerFixture;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * An application instance running one scheduled job with Spring's scheduler, as its own JVM so a
 * test can kill it with {@code kill -9} in the middle of a run. The job takes its lock without
 * waiting (the watchdog keeps it), prints {@code running} and works for a minute; its release would
 * keep the lock for its {@code holdAtLeast}, but the kill comes first.
 *
 * <p>Arguments: {@code lockPort key watchdogMillis holdAtLeastMillis}.
 */
public final class ScheduledJobWorker {

    private ScheduledJobWorker() {
    }

    public static void main(String[] args) {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3))); // never outlive the test JVM
        LockerFixture instance = LockerFixture.connect("127.0.0.1", Integer.parseInt(args[0]), Duration.ofMillis(Long.parseLong(args[2])));
        String key = args[1];
        Duration holdAtLeast = Duration.ofMillis(Long.parseLong(args[3]));
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.initialize();
        scheduler.scheduleAtFixedRate(() -> {
            if (!instance.locker.tryLock(key)) {
                return;
            }
            try {
                System.out.println("running");
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                instance.locker.unlock(key, holdAtLeast);
            }
        }, Duration.ofSeconds(1));
    }
}
