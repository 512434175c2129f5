package io.github.redislock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis side of every lock: runs the lock scripts with EVALSHA (falling back to EVAL when Redis
 * lost its script cache, e.g. after {@code SCRIPT FLUSH} or a restart) and turns Redis failures into
 * {@link LockRedisException}s that name the key. Shared by the {@link Locker} and the watchdog;
 * applications use {@link Locker}.
 */
public final class LockCommands implements RenewalClient {

    /** Most locks renewed by one script call; 1,000 held locks still cost one call per tick. */
    static final int MAX_RENEWAL_BATCH = 1000;

    private static final int MAX_OPEN_ATTEMPTS = 3;

    private final RedisConnectionFactory connectionFactory;
    /** Lettuce times commands out itself; this only guards against a client configured without command timeouts. */
    private final Duration replyBackstop;
    private volatile Boolean cluster;

    public LockCommands(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
        this.replyBackstop = (connectionFactory instanceof LettuceConnectionFactory lettuce
                ? lettuce.getClientConfiguration().getCommandTimeout() : Duration.ofSeconds(60)).plusSeconds(1);
    }

    record Acquisition(boolean acquired, long holdCount, long holderTtlMillis) {
    }

    Acquisition acquire(LockKeys keys, String owner, long leaseMillis) {
        List<?> reply = run(keys.name(), LockScript.ACQUIRE, ReturnType.MULTI, 1,
                bytes(keys.name()), bytes(Long.toString(leaseMillis)), bytes(owner));
        boolean acquired = ((Number) reply.get(0)).longValue() == 1;
        long value = ((Number) reply.get(1)).longValue();
        return acquired ? new Acquisition(true, value, 0) : new Acquisition(false, 0, value);
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

    /**
     * Runs a lock script. With Lettuce the call goes through its asynchronous API and is awaited here,
     * ignoring interrupts until the reply is in: a script that changed a lock must never be abandoned
     * half-way by an interrupt, or the caller would not know whether it holds the lock.
     */
    @SuppressWarnings("unchecked")
    <T> T run(String redisKey, LockScript script, ReturnType returnType, int keyCount, byte[]... keysAndArgs) {
        return call(redisKey, connection -> {
            if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce) {
                return (T) runAwaited((RedisClusterAsyncCommands<byte[], byte[]>) lettuce, script, returnType, keyCount, keysAndArgs);
            }
            try {
                return (T) connection.scriptingCommands().evalSha(script.sha1(), returnType, keyCount, keysAndArgs);
            } catch (RuntimeException e) {
                if (!isNoScript(e)) {
                    throw e;
                }
                return (T) connection.scriptingCommands().eval(script.body(), returnType, keyCount, keysAndArgs);
            }
        });
    }

    private Object runAwaited(RedisClusterAsyncCommands<byte[], byte[]> lettuce, LockScript script, ReturnType returnType,
                              int keyCount, byte[][] keysAndArgs) {
        ScriptOutputType output = returnType == ReturnType.MULTI ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
        byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, keyCount);
        byte[][] args = Arrays.copyOfRange(keysAndArgs, keyCount, keysAndArgs.length);
        try {
            return awaitUninterruptibly(lettuce.evalsha(script.sha1Hex(), output, keys, args));
        } catch (RuntimeException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return awaitUninterruptibly(lettuce.eval(script.body(), output, keys, args));
        }
    }

    /** Waits for the reply, keeping (not obeying) interrupts; bounded by the command timeout as a backstop. */
    private <T> T awaitUninterruptibly(RedisFuture<T> reply) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + replyBackstop.toNanos();
        try {
            while (true) {
                try {
                    return reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
                } catch (TimeoutException e) {
                    reply.cancel(true);
                    throw new IllegalStateException("No reply from Redis within " + replyBackstop, e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs one Redis interaction. The interrupt flag is cleared for its duration and set again
     * afterwards: the Redis client refuses to start a command on an interrupted thread, and an
     * interrupted thread must still be able to release its locks.
     */
    <T> T call(String redisKey, Function<RedisConnection, T> action) {
        boolean interrupted = Thread.interrupted();
        try (RedisConnection connection = openConnection()) {
            return action.apply(connection);
        } catch (RuntimeException e) {
            throw new LockRedisException("Redis command for lock " + redisKey + " failed: " + rootMessage(e), e);
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Opening (possibly connecting) is safe to repeat, so an interrupt that aborted it is kept for later and the open retried. */
    private RedisConnection openConnection() {
        for (int attempt = 1; ; attempt++) {
            try {
                return connectionFactory.getConnection();
            } catch (RuntimeException e) {
                if (attempt == MAX_OPEN_ATTEMPTS || !causedByInterrupt(e)) {
                    throw e;
                }
                Thread.interrupted();
            }
        }
    }

    private static boolean causedByInterrupt(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
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
