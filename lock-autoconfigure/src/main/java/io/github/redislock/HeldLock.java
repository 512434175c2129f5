package io.github.redislock;

import java.time.Instant;

/**
 * A lock this application instance holds, as it knows it locally; a snapshot for diagnostics such as
 * the {@code locks} Actuator endpoint.
 *
 * @param key         the key the holder gave
 * @param redisKey    the Redis key of the lock
 * @param kind        the lock kind, e.g. {@code reentrant}
 * @param owner       the owner field in Redis, {@code <clientId>:<threadId>}
 * @param thread      the name of the holding thread
 * @param holdCount   how many times the owner holds it
 * @param since       when the owner first took it
 * @param leaseMillis the lease of the latest acquisition, or {@link Locker#WATCHDOG_LEASE}
 * @param watchdog    whether the watchdog renews it
 * @param lost        whether the watchdog found it gone (the holder's unlock will throw {@link LockLostException})
 */
public record HeldLock(String key, String redisKey, String kind, String owner, String thread, long holdCount,
                       Instant since, long leaseMillis, boolean watchdog, boolean lost) {
}
