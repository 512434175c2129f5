package io.github.redislock.reliability;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockerFixture;

/**
 * An application instance that takes one lock and unlocks it when told, run as its own JVM so a test can pause it
 * ({@code kill -STOP}) past its lease. It talks to the test through Redis lists: it pushes "held" to {@code <key>:held}, waits for
 * an element of {@code <key>:go}, waits (with the watchdog) for its watchdog's verdict on the hold, unlocks, and pushes what the
 * unlock did and the lock-loss events it saw to {@code <key>:result}.
 *
 * <p>Arguments: {@code lockPort key leaseMillis watchdogMillis} ({@code leaseMillis} -1 for the watchdog).
 */
public final class PausedHolder {

    private PausedHolder() {
    }

    public static void main(String[] args) throws Exception {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3))); // never outlive the test JVM
        String key = args[1];
        long leaseMillis = Long.parseLong(args[2]);
        LockerFixture instance = LockerFixture.connect("127.0.0.1", Integer.parseInt(args[0]), Duration.ofMillis(Long.parseLong(args[3])));
        instance.locker.tryLock(key, 0, leaseMillis, TimeUnit.MILLISECONDS);
        instance.redis.opsForList().rightPush(key + ":held", "held");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).until(() -> instance.redis.opsForList().leftPop(key + ":go") != null);
        if (leaseMillis < 0) { // the watchdog's next tick (a third of its timeout) finds the hold gone
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> !instance.lostEvents.isEmpty());
        }
        String unlocked;
        try {
            instance.locker.unlock(key);
            unlocked = "returned";
        } catch (RuntimeException e) {
            unlocked = e.getClass().getSimpleName();
        }
        instance.redis.opsForList().rightPush(key + ":result", "unlock=" + unlocked + " lostEvents=" + instance.lostEvents.size()
                + " watched=" + instance.locker.watchdogState().watchedCount());
        Runtime.getRuntime().halt(0);
    }
}
