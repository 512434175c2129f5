package io.github.redislock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.github.redislock.watchdog.RenewalClient;
import io.github.redislock.watchdog.WatchedLock;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The Redis side of every lock: runs the lock scripts with EVALSHA (falling back to EVAL when Redis
 * lost its script cache, e.g. after {@code SCRIPT FLUSH} or a restart) and turns Redis failures into
 * {@link LockRedisException}s that name the key. Shared by the {@link Locker} and the watchdog;
 * applications use {@link Locker}.
 */
public final class LockCommands implements RenewalClient {

    /** Most locks renewed by one script call; 1,000 held locks still cost one call per tick. */
    static final int MAX_RENEWAL_BATCH = 1000;

    private final RedisConnectionFactory connectionFactory;
    /** How long a first acquisition waits for a replica's acknowledgement; null = not at all. */
    private final Duration replicaSync;
    private volatile Boolean cluster;

    public LockCommands(RedisConnectionFactory connectionFactory) {
        this(connectionFactory, null);
    }

    /**
     * @param replicaSync when not null, every first acquisition waits up to this long ({@code WAIT 1}) for a
     *                    replica to acknowledge it and fails, released again, when none did
     */
    public LockCommands(RedisConnectionFactory connectionFactory, Duration replicaSync) {
        this.connectionFactory = connectionFactory;
        this.replicaSync = replicaSync;
    }

    record Acquisition(boolean acquired, long holdCount, long holderTtlMillis) {
    }

    /**
     * @param firstHold whether the owner holds no hold of this lock as far as the caller knows; Redis then
     *                  starts the count at 1 whatever it counted before, so a hold whose reply timed out
     *                  does not turn this acquisition into a reentrant one that the owner's unlock never frees
     */
    Acquisition acquire(LockKeys keys, String owner, long leaseMillis, boolean firstHold) {
        return call(keys.name(), connection -> {
            List<?> reply = script(connection, LockScript.ACQUIRE, ReturnType.MULTI, 1,
                    bytes(keys.name()), bytes(Long.toString(leaseMillis)), bytes(owner), bytes(firstHold ? "1" : "0"));
            boolean acquired = ((Number) reply.get(0)).longValue() == 1;
            long value = ((Number) reply.get(1)).longValue();
            if (acquired && value == 1 && replicaSync != null) {
                awaitReplica(connection, keys, owner, leaseMillis);
            }
            return acquired ? new Acquisition(true, value, 0) : new Acquisition(false, 0, value);
        });
    }

    /**
     * WAIT on the connection that ran the acquisition, so it counts exactly that write; without an
     * acknowledgement the lock could vanish in a failover, so it is released and the acquisition fails.
     */
    private void awaitReplica(RedisConnection connection, LockKeys keys, String owner, long leaseMillis) {
        if (replicasAcknowledging(connection) >= 1) {
            return;
        }
        script(connection, LockScript.RELEASE, ReturnType.INTEGER, 2, bytes(keys.name()), bytes(keys.channel()), bytes(owner), bytes(Long.toString(leaseMillis)));
        throw new LockRedisException("Lock " + keys.name() + " was acquired, but no replica acknowledged it within " + replicaSync
                + " (redis-lock.replica-sync), so it was released again: it might not survive a failover", null);
    }

    /** @return the holds left after this release, or -1 when {@code owner} did not hold the lock */
    long release(LockKeys keys, String owner, long leaseMillis) {
        Long reply = run(keys.name(), LockScript.RELEASE, ReturnType.INTEGER, 2,
                bytes(keys.name()), bytes(keys.channel()), bytes(owner), bytes(Long.toString(leaseMillis)));
        return reply;
    }

    boolean exists(LockKeys keys) {
        return call(keys.name(), connection -> Boolean.TRUE.equals(connection.keyCommands().exists(bytes(keys.name()))));
    }

    int holdCount(LockKeys keys, String owner) {
        byte[] value = call(keys.name(), connection -> connection.hashCommands().hGet(bytes(keys.name()), bytes(owner)));
        return value == null ? 0 : Integer.parseInt(new String(value, StandardCharsets.US_ASCII));
    }

    @Override
    public Set<WatchedLock> renew(List<WatchedLock> locks, long leaseMillis) {
        Set<WatchedLock> lost = new HashSet<>();
        for (List<WatchedLock> batch : batches(locks)) {
            byte[][] keysAndArgs = new byte[batch.size() * 2 + 1][];
            keysAndArgs[batch.size()] = bytes(Long.toString(leaseMillis));
            for (int i = 0; i < batch.size(); i++) {
                keysAndArgs[i] = bytes(batch.get(i).redisKey());
                keysAndArgs[batch.size() + 1 + i] = bytes(batch.get(i).ownerField());
            }
            List<?> lostPositions = run(batch.get(0).redisKey(), LockScript.RENEW, ReturnType.MULTI, batch.size(), keysAndArgs);
            for (Object position : lostPositions) {
                lost.add(batch.get(((Number) position).intValue() - 1));
            }
        }
        return lost;
    }

    /** One batch per hash slot in a cluster (a script may not cross slots), otherwise as few as the batch size allows. */
    private List<List<WatchedLock>> batches(List<WatchedLock> locks) {
        Function<WatchedLock, Integer> group = isCluster() ? lock -> ClusterSlotHashUtil.calculateSlot(lock.redisKey()) : lock -> 0;
        Map<Integer, List<WatchedLock>> bySlot = new LinkedHashMap<>();
        for (WatchedLock lock : locks) {
            bySlot.computeIfAbsent(group.apply(lock), slot -> new ArrayList<>()).add(lock);
        }
        List<List<WatchedLock>> batches = new ArrayList<>();
        for (Collection<WatchedLock> slotLocks : bySlot.values()) {
            List<WatchedLock> list = new ArrayList<>(slotLocks);
            for (int from = 0; from < list.size(); from += MAX_RENEWAL_BATCH) {
                batches.add(list.subList(from, Math.min(list.size(), from + MAX_RENEWAL_BATCH)));
            }
        }
        return batches;
    }

    private boolean isCluster() {
        Boolean known = cluster;
        if (known == null) {
            known = call("(topology check)", connection -> connection instanceof RedisClusterConnection);
            cluster = known;
        }
        return known;
    }

    /** Spring's generic execute cannot read WAIT's integer reply, so it goes through Lettuce on the same (shared) connection. */
    private long replicasAcknowledging(RedisConnection connection) {
        Object nativeConnection = connection.getNativeConnection();
        if (!(nativeConnection instanceof RedisClusterAsyncCommands<?, ?> commands)) {
            throw new IllegalStateException("redis-lock.replica-sync needs a Lettuce connection, not " + nativeConnection.getClass().getName());
        }
        try {
            return commands.waitForReplication(1, replicaSync.toMillis()).get(replicaSync.toMillis() + 5000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a replica to acknowledge a lock", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("WAIT for a replica failed: " + rootMessage(e), e);
        }
    }

    private <T> T run(String redisKey, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        return call(redisKey, connection -> script(connection, script, returnType, keyCount, keysAndArgs));
    }

    @SuppressWarnings("unchecked")
    private static <T> T script(RedisConnection connection, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        try {
            return (T) connection.scriptingCommands().evalSha(script.sha1(), returnType, keyCount, keysAndArgs);
        } catch (RuntimeException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return (T) connection.scriptingCommands().eval(script.body(), returnType, keyCount, keysAndArgs);
        }
    }

    /**
     * Runs one Redis interaction. The interrupt flag is cleared for its duration and set again
     * afterwards: the Redis client refuses to run on an interrupted thread, and an interrupted thread
     * must still be able to release its locks.
     */
    private <T> T call(String redisKey, Function<RedisConnection, T> action) {
        boolean interrupted = Thread.interrupted();
        try (RedisConnection connection = connectionFactory.getConnection()) {
            return action.apply(connection);
        } catch (LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockRedisException("Redis command for lock " + redisKey + " failed: " + rootMessage(e), e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static boolean isNoScript(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
