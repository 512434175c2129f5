package io.github.redislock.benchmarks.scenarios;

import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockScript;
import io.github.redislock.core.wait.LockAttempts;
import java.util.Arrays;
import java.util.List;

/**
 * The acquire and release script calls redis-lock sends for an uncontended {@code lock(key)} and
 * {@code unlock(key)}, built by the library's own code, so the benchmark's Redis ceiling sends
 * exactly what the library sends.
 *
 * <p>A measuring hook for {@code lock-benchmarks}: part of the library because the builders are
 * package-private, and a copy of them would drift from what the Locker really sends. Applications
 * have no use for it.
 */
public final class CeilingCalls {

    /** One script call: the script's SHA-1 and its KEYS and ARGV. */
    public record Call(String sha1, byte[][] keys, byte[][] args) {
    }

    /** A fencing token as the Redis clock gives them (microseconds), so the release carries as many bytes as a real one. */
    private static final long TYPICAL_TOKEN = 1_795_435_892_693_675L;

    private CeilingCalls() {
    }

    /**
     * What {@code lock(key)} sends first with the watchdog's lease: it may wait, so a blocked try would
     * queue, keeping its place as long as the Locker would for that watchdog timeout.
     */
    public static Call acquire(String prefix, String key, String owner, long leaseMillis) {
        long keepPlaceMillis = LockAttempts.keepPlaceMillis(leaseMillis);
        List<LockKeys> group = List.of(LockKeys.of(prefix, key));
        byte[][] keysAndArgs = LockCommands.acquireKeysAndArgs(group, owner, leaseMillis, new boolean[] {true}, keepPlaceMillis,
                LockCommands.queueMember(LockCommands.inboxField(prefix + "__anchor:ceiling"), "1:" + owner, leaseMillis), false, true, false);
        return split(LockScript.ACQUIRE, keysAndArgs, LockCommands.acquireKeyCount(1, keepPlaceMillis));
    }

    /**
     * What the final {@code unlock(key)} of a hold its first try took sends: release.lua's short release, the lock
     * and its owner (see LockCommands.releaseAsync; UncontendedCostTest checks the real call's shape).
     */
    public static Call release(String prefix, String key, String owner) {
        return new Call(LockScript.RELEASE.sha1Hex(), new byte[][] {LockCommands.bytes(LockKeys.of(prefix, key).name())},
                new byte[][] {LockCommands.bytes(owner)});
    }

    /** The script body, for loading it into Redis. */
    public static String body(Call call) {
        for (LockScript script : LockScript.values()) {
            if (script.sha1Hex().equals(call.sha1())) {
                return new String(script.body(), java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        throw new IllegalArgumentException("Not a redis-lock script: " + call.sha1());
    }

    private static Call split(LockScript script, byte[][] keysAndArgs, int keyCount) {
        return new Call(script.sha1Hex(), Arrays.copyOfRange(keysAndArgs, 0, keyCount), Arrays.copyOfRange(keysAndArgs, keyCount, keysAndArgs.length));
    }
}
