package io.github.redislock.core.script;

import io.github.redislock.core.renewal.RenewalClient;
import io.github.redislock.core.renewal.WatchedLock;
import io.github.redislock.LockRedisException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The lock scripts as calls, each returning a future: what each sends (KEYS and ARGV in the order its {@code .lua} header lists and
 * explains them) and how its reply reads, with replica-sync's wait for a replica and the watchdog's batches; {@link ScriptTransport}
 * takes them to Redis.
 */
public class LockCommands implements RenewalClient {

    private final ScriptTransport transport;
    /** How long a first acquisition waits for a replica's acknowledgement; null = not at all. */
    private final Duration replicaSync;
    /** Shared with the release subscriptions, so the scripts publish the way the waiters listen. */
    private final ShardedChannels shardedChannels;

    /** @param callerConnections whether a blocking caller may send on a connection of its own ({@code CallerConnections}); not for a Redlock master, whose calls go out together */
    public LockCommands(RedisConnectionFactory connectionFactory, Duration watchdogTimeout, Duration replicaSync, ShardedChannels shardedChannels,
                        boolean callerConnections) {
        this(connectionFactory, null, watchdogTimeout, replicaSync, shardedChannels, callerConnections);
    }

    /** Script calls go to {@code commands} alone: the benchmarks' {@code LockClientProbe} answers them in memory. */
    public LockCommands(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        this(null, commands, null, null, ShardedChannels.classic(), false);
    }

    private LockCommands(RedisConnectionFactory connectionFactory, RedisClusterAsyncCommands<byte[], byte[]> commands, Duration watchdogTimeout,
                         Duration replicaSync, ShardedChannels shardedChannels, boolean callerConnections) {
        this.transport = new ScriptTransport(connectionFactory, commands, watchdogTimeout, callerConnections);
        this.replicaSync = replicaSync;
        this.shardedChannels = shardedChannels;
    }

    /** The reply of an acquire script: per lock the holds and fencing token, or (0-based) which lock blocked it and for how long. */
    public record Acquisition(boolean acquired, long[] holdCounts, long[] tokens, int blockedIndex, long holderTtlMillis) {

        static Acquisition of(Object shape) {
            List<?> reply = shape instanceof List<?> list ? list : List.of(shape); // a lone integer: a Long from Jedis, a list of one from Lettuce
            if (reply.size() == 1 || number(reply, 0) != 1) { // size 1: acquire.lua's everyday reply, a first hold's token alone or 1 (none drawn: 0)
                return reply.size() == 1 ? new Acquisition(true, new long[] {1}, new long[] {number(reply, 0) == 1 ? 0 : number(reply, 0)}, -1, 0)
                        : new Acquisition(false, new long[0], new long[0], (int) number(reply, 1) - 1, number(reply, 2));
            }
            int locks = (reply.size() - 1) / 2; // {1, holdCount1, token1, holdCount2, token2, ...}
            return new Acquisition(true, IntStream.range(0, locks).mapToLong(i -> number(reply, 1 + 2 * i)).toArray(),
                    IntStream.range(0, locks).mapToLong(i -> number(reply, 2 + 2 * i)).toArray(), -1, 0);
        }

        /** Whether a replica must acknowledge it: it took a first hold of some lock. */
        boolean tookFirstHold() {
            return acquired && Arrays.stream(holdCounts).anyMatch(count -> count == 1);
        }
    }

    /** Takes every lock of {@code group} (one hash slot) for {@code owner}, or none of them (see {@code acquire.lua}; {@code drawToken}: its flag 3). */
    public CompletableFuture<Acquisition> acquireAsync(List<LockKeys> group, String owner, long leaseMillis, boolean[] firstHolds, long keepPlaceMillis,
                                                String queueMember, boolean queuedBefore, boolean waits, boolean drawToken) {
        return synced(LockKind.PLAIN, group, owner, leaseMillis, LockScript.ACQUIRE, acquireKeyCount(group.size(), keepPlaceMillis),
                () -> acquireKeysAndArgs(group, owner, leaseMillis, firstHolds, keepPlaceMillis, queueMember, queuedBefore, waits, drawToken),
                Acquisition::of, Acquisition::tookFirstHold);
    }

    public static int acquireKeyCount(int locks, long keepPlaceMillis) {
        if (keepPlaceMillis > 0 && locks != 1) {
            throw new IllegalArgumentException("Only a single lock can queue, not " + locks);
        }
        return keepPlaceMillis > 0 ? 3 : locks;
    }

    /** KEYS then ARGV of {@code acquire.lua}; also what the benchmark's Redis ceiling sends. */
    public static byte[][] acquireKeysAndArgs(List<LockKeys> group, String owner, long leaseMillis, boolean[] firstHolds, long keepPlaceMillis,
                                       String queueMember, boolean queuedBefore, boolean waits, boolean drawToken) {
        int locks = group.size();
        int keyCount = acquireKeyCount(locks, keepPlaceMillis);
        byte[][] keysAndArgs = new byte[keyCount + (keepPlaceMillis > 0 ? 5 : 3)][];
        byte[] flags = keysAndArgs[keyCount + 2] = new byte[3 + locks];
        flags[0] = flag(queuedBefore)[0];
        flags[1] = flag(waits)[0];
        flags[2] = flag(drawToken)[0];
        for (int i = 0; i < locks; i++) {
            keysAndArgs[i] = bytes(group.get(i).name());
            flags[3 + i] = flag(firstHolds[i])[0];
        }
        if (keepPlaceMillis > 0) {
            keysAndArgs[1] = bytes(group.get(0).waitQueue());
            keysAndArgs[2] = bytes(group.get(0).waitDeadlines());
            keysAndArgs[keyCount + 3] = bytes(Long.toString(keepPlaceMillis));
            keysAndArgs[keyCount + 4] = bytes(queueMember);
        }
        keysAndArgs[keyCount] = bytes(Long.toString(leaseMillis));
        keysAndArgs[keyCount + 1] = bytes(owner);
        return keysAndArgs;
    }

    /** The member a wait has in a lock's wait queue (its parts: see {@code release.lua}); the inbox field is length-prefixed so any name parses. */
    public static String queueMember(String inboxField, String waitName, long leaseMillis) {
        return leaseMillis + "|" + inboxField + waitName;
    }

    public static String inboxField(String inbox) {
        return inbox.getBytes(StandardCharsets.UTF_8).length + "|" + inbox;
    }

    /** A fair lock ({@code fair.lua}; {@code keepPlaceMillis} 0: no queueing) or a read or write hold ({@code read-write.lua}; {@code firstOfKind}: none known). */
    public CompletableFuture<Acquisition> acquireAsync(LockKind kind, LockKeys keys, String owner, long leaseMillis, long keepPlaceMillis,
                                                       boolean holdsNothing, boolean firstOfKind) {
        String action = kind == LockKind.FAIR ? "acquire" : kind == LockKind.READ ? "read" : "write";
        return synced(kind, List.of(keys), owner, leaseMillis, kind == LockKind.FAIR ? LockScript.FAIR : LockScript.READ_WRITE, 4,
                () -> kindKeys(kind, keys, action, owner, leaseMillis, keepPlaceMillis, holdsNothing, firstOfKind), Acquisition::of, Acquisition::tookFirstHold);
    }

    /** Releases one hold of a fair or read-write {@code kind} (a plain one: the group release; {@code restoreLease} 0: the owner's last, freed whatever Redis counts); returns the holds (of that mode) left, or -1. */
    public CompletableFuture<Long> releaseAsync(LockKind kind, LockKeys keys, String owner, long restoreLease) {
        return send(keys.name(), kind == LockKind.FAIR ? LockScript.FAIR : LockScript.READ_WRITE, ReturnType.INTEGER, 4,
                () -> releaseKeys(kind, keys, owner, restoreLease));
    }

    public CompletableFuture<Void> leaveFairQueueAsync(LockKeys keys, String owner) {
        return this.<Long>send(keys.name(), LockScript.FAIR, ReturnType.INTEGER, 4, () -> kindKeys(LockKind.FAIR, keys, "leave", owner, 0, 0, false, false))
                .thenApply(left -> null);
    }

    private byte[][] releaseKeys(LockKind kind, LockKeys keys, String owner, long restoreLease) {
        return kind == LockKind.FAIR ? kindKeys(kind, keys, "release", owner, restoreLease, 0, false, false)
                : kindKeys(kind, keys, kind == LockKind.READ ? "unread" : "unwrite", owner, 0, 0, restoreLease == 0, false);
    }

    /** KEYS then ARGV of {@code fair.lua} (keepPlaceMillis and holdsNothing, its firstHold, are fair's) or {@code read-write.lua}. */
    private byte[][] kindKeys(LockKind kind, LockKeys keys, String action, String owner, long leaseMillis, long keepPlaceMillis,
                              boolean holdsNothing, boolean firstOfKind) {
        return kind == LockKind.FAIR ? new byte[][] {bytes(keys.name()), bytes(keys.queue()), bytes(keys.helper("waiters")), bytes(keys.fence()),
                bytes(action), bytes(owner), bytes(Long.toString(leaseMillis)), bytes(Long.toString(keepPlaceMillis)),
                bytes(keys.turnChannelPrefix()), flag(holdsNothing), publishCommand(keys.name())}
                : new byte[][] {bytes(keys.name()), bytes(keys.leases()), bytes(keys.fence()), bytes(keys.channel()), bytes(action), bytes(owner),
                bytes(Long.toString(leaseMillis)), flag(holdsNothing), flag(firstOfKind), publishCommand(keys.name())};
    }

    /**
     * Releases one hold of every lock of {@code group} (one hash slot), each on its own; {@code keeps} (null for none): see
     * {@code release.lua}. Returns per lock the holds left, or -1 when {@code owner} did not hold it. A single lock its first try took
     * ({@code takenUncontended}) goes by the short release, then by the full one when a waiter marked it or the short reply was lost
     * (which may have been that mark; a -1 of the full one then proves nothing, so the loss is what the caller gets).
     */
    public CompletableFuture<long[]> releaseAsync(List<LockKeys> group, String owner, long[] restoreLeases, long[] tokens, long[] keeps,
                                                  boolean takenUncontended) {
        if (!takenUncontended || group.size() != 1 || restoreLeases[0] != 0 || keeps != null) {
            return fullRelease(group, owner, restoreLeases, tokens, keeps);
        }
        // One stage after the short reply and one to take its outcome: the everyday unlock adds no more.
        return this.<Long>send(group.get(0).name(), LockScript.RELEASE, ReturnType.INTEGER, 1, () -> new byte[][] {bytes(group.get(0).name()), bytes(owner)})
                .handle((left, lost) -> lost == null && left != -2 ? CompletableFuture.completedFuture(new long[] {left})
                        : fullRelease(group, owner, restoreLeases, tokens, null).thenCompose(full -> lost == null || full[0] >= 0
                                ? CompletableFuture.completedFuture(full) : CompletableFuture.<long[]>failedFuture(ScriptTransport.unwrap(lost))))
                .thenCompose(outcome -> outcome);
    }

    private CompletableFuture<long[]> fullRelease(List<LockKeys> group, String owner, long[] restoreLeases, long[] tokens, long[] keeps) {
        return release(group, owner, "", restoreLeases, tokens, keeps).thenApply(reply -> reply.stream().mapToLong(left -> ((Number) left).longValue()).toArray());
    }

    /** The fencing token of {@code owner}'s plain hold, drawn now ({@code token.lua}): -1 when Redis no longer has that hold. */
    public CompletableFuture<Long> tokenAsync(LockKeys keys, String owner) {
        return send(keys.name(), LockScript.TOKEN, ReturnType.INTEGER, 1, () -> new byte[][] {bytes(keys.name()), bytes(owner)});
    }

    /** Takes a waiter that gives up out of the queue, releasing a hold handed to it meanwhile; true when it had been handed the lock. */
    public CompletableFuture<Boolean> withdrawAsync(LockKeys keys, String owner, String queueMember, long leaseMillis) {
        return release(List.of(keys), owner, queueMember, new long[] {leaseMillis}, new long[1], null).thenApply(reply -> number(reply, 0) == 0);
    }

    private CompletableFuture<List<?>> release(List<LockKeys> group, String owner, String withdrawnMember, long[] restoreLeases, long[] tokens, long[] keeps) {
        return send(group.get(0).name(), LockScript.RELEASE, ReturnType.MULTI, group.size() * RELEASE_KEYS_PER_LOCK,
                () -> releaseKeysAndArgs(group, owner, withdrawnMember, restoreLeases, tokens, keeps, publishCommand(group.get(0).name())));
    }

    public static final int RELEASE_KEYS_PER_LOCK = 4;

    /** KEYS ({@value #RELEASE_KEYS_PER_LOCK} per lock) then ARGV of {@code release.lua}; also what the benchmark's Redis ceiling sends. */
    public static byte[][] releaseKeysAndArgs(List<LockKeys> group, String owner, String withdrawnMember, long[] restoreLeases, long[] tokens,
                                              long[] keeps, byte[] publishCommand) {
        int locks = group.size();
        int keyCount = locks * RELEASE_KEYS_PER_LOCK;
        byte[][] keysAndArgs = new byte[keyCount + 3 + 2 * locks + (keeps == null ? 0 : locks)][];
        for (int i = 0; i < locks; i++) {
            LockKeys keys = group.get(i);
            keysAndArgs[4 * i] = bytes(keys.name());
            keysAndArgs[4 * i + 1] = bytes(keys.channel());
            keysAndArgs[4 * i + 2] = bytes(keys.waitQueue());
            keysAndArgs[4 * i + 3] = bytes(keys.waitDeadlines());
            keysAndArgs[keyCount + 3 + 2 * i] = bytes(Long.toString(restoreLeases[i]));
            keysAndArgs[keyCount + 4 + 2 * i] = bytes(Long.toString(tokens[i]));
            if (keeps != null) {
                keysAndArgs[keyCount + 3 + 2 * locks + i] = bytes(Long.toString(keeps[i]));
            }
        }
        keysAndArgs[keyCount] = bytes(owner);
        keysAndArgs[keyCount + 1] = bytes(withdrawnMember);
        keysAndArgs[keyCount + 2] = publishCommand;
        return keysAndArgs;
    }

    /**
     * Confirms a lock a release handed to {@code owner} with a claim lease ({@code claim.lua}), false when its claim lease ran out
     * first; a round trip only for a longer lease, with replica-sync, or with a {@code requeuedMember} to take out of the queue.
     */
    public CompletableFuture<Boolean> confirmHandOffAsync(LockKeys keys, String owner, long leaseMillis, long claimLeaseMillis, String requeuedMember) {
        if (replicaSync == null && leaseMillis <= claimLeaseMillis && requeuedMember == null) {
            return CompletableFuture.completedFuture(true);
        }
        byte[][] keysAndArgs = requeuedMember == null ? new byte[][] {bytes(keys.name()), bytes(owner), bytes(Long.toString(leaseMillis))}
                : new byte[][] {bytes(keys.name()), bytes(keys.waitQueue()), bytes(keys.waitDeadlines()),
                        bytes(owner), bytes(Long.toString(leaseMillis)), bytes(requeuedMember)};
        return this.<Long, Boolean>synced(LockKind.PLAIN, List.of(keys), owner, leaseMillis, LockScript.CLAIM, requeuedMember == null ? 1 : 3,
                () -> keysAndArgs, held -> held == 1, held -> held);
    }

    /** Sends once the publish mode is known (see {@link ShardedChannels#shardedAsync}); building the arguments may fail: that fails the future. */
    private <T> CompletableFuture<T> send(String redisKey, LockScript script, ReturnType returnType, int keyCount, Supplier<byte[][]> keysAndArgs) {
        if (!shardedChannels.known()) {
            return shardedChannels.shardedAsync(redisKey).thenCompose(learned -> send(redisKey, script, returnType, keyCount, keysAndArgs));
        }
        return ScriptTransport.started(() -> transport.runAsync(ScriptTransport.BLOCKING_CALLS, redisKey, script, returnType, keyCount, keysAndArgs.get()));
    }

    /**
     * Sends a script that may grant {@code owner} the locks of {@code group}. With replica-sync, when {@code needsReplica} finds
     * that it did, it WAITs on the same connection (so it counts exactly that write; through Lettuce, as Spring cannot read WAIT's
     * reply) for a replica: without one the lock could vanish in a failover, so it releases it again (to the next waiter).
     */
    private <R, T> CompletableFuture<T> synced(LockKind kind, List<LockKeys> group, String owner, long leaseMillis, LockScript script, int keyCount,
                                              Supplier<byte[][]> keysAndArgs, Function<R, T> reply, Predicate<T> needsReplica) {
        String redisKey = group.get(0).name();
        ReturnType returnType = script == LockScript.CLAIM ? ReturnType.INTEGER : ReturnType.VALUE;
        if (replicaSync == null) {
            return this.<R>send(redisKey, script, returnType, keyCount, keysAndArgs).thenApply(reply);
        }
        return transport.onConnection(ScriptTransport.BLOCKING_CALLS, redisKey, connection -> {
            T result = reply.apply(transport.scriptOn(redisKey, connection, script, returnType, keyCount, keysAndArgs.get()));
            if (!needsReplica.test(result)) {
                return result;
            }
            if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
                throw new IllegalStateException("redis-lock.replica-sync needs a Lettuce connection, not "
                        + connection.getNativeConnection().getClass().getName());
            }
            if (transport.await(transport.sendCommand(() -> commands.waitForReplication(1, replicaSync.toMillis()))) < 1) {
                if (kind == LockKind.PLAIN) {
                    long[] leases = new long[group.size()];
                    Arrays.fill(leases, leaseMillis);
                    transport.scriptOn(redisKey, connection, LockScript.RELEASE, ReturnType.MULTI, group.size() * RELEASE_KEYS_PER_LOCK,
                            releaseKeysAndArgs(group, owner, "", leases, new long[group.size()], null, publishCommand(redisKey)));
                } else {
                    transport.scriptOn(redisKey, connection, script, ReturnType.INTEGER, 4, releaseKeys(kind, group.get(0), owner, leaseMillis));
                }
                throw new LockRedisException("Lock " + redisKey + " was acquired, but no replica acknowledged it within " + replicaSync
                        + " (redis-lock.replica-sync), so it was released again: it might not survive a failover", null);
            }
            return result;
        });
    }

    public byte[] publishCommand(String redisKey) {
        return ScriptTransport.guarded(redisKey, () -> shardedChannels.sharded() ? ShardedChannels.SPUBLISH : ShardedChannels.CLASSIC_PUBLISH);
    }

    public boolean exists(LockKeys keys) {
        return transport.call(keys.name(), connection -> Boolean.TRUE.equals(connection.keyCommands().exists(bytes(keys.name()))));
    }

    /** @param field the owner field, or for a read-write lock the owner's read or write field */
    public int holdCount(LockKeys keys, String field) {
        byte[] value = transport.call(keys.name(), connection -> connection.hashCommands().hGet(bytes(keys.name()), bytes(field)));
        return value == null ? 0 : Integer.parseInt(new String(value, StandardCharsets.US_ASCII));
    }

    /** Most locks renewed by one script call; 1,000 held locks still cost one call per tick. */
    public static final int MAX_RENEWAL_BATCH = 1000;

    /** Threads that wait for renewal replies without a shared native connection, apart from the lock calls' so neither starves the other. */
    public static final int RENEWAL_THREADS = 16;
    private static final Executor RENEWALS = ScriptTransport.boundedThreads("redis-lock-renewal", RENEWAL_THREADS, 4096);

    /**
     * One script per slot, kind and {@link #MAX_RENEWAL_BATCH} locks; the result waits for each up to a third of {@code leaseMillis}
     * from now, whatever the client's timeout, so a hung node does not hold up the healthy ones' renewals.
     */
    @Override
    public Sent send(List<WatchedLock> locks, long leaseMillis) {
        boolean inCluster = transport.isCluster();
        Map<Integer, List<WatchedLock>> bySlotAndScript = new LinkedHashMap<>();
        for (WatchedLock lock : locks) {
            int slot = inCluster ? ClusterSlotHashUtil.calculateSlot(lock.redisKey()) : 0;
            bySlotAndScript.computeIfAbsent(2 * slot + (lock.leaseSet() == null ? 0 : 1), group -> new ArrayList<>()).add(lock);
        }
        List<RenewalBatch> sent = new ArrayList<>();
        for (List<WatchedLock> group : bySlotAndScript.values()) {
            for (int from = 0; from < group.size(); from += MAX_RENEWAL_BATCH) {
                sent.add(sendBatch(group.subList(from, Math.min(group.size(), from + MAX_RENEWAL_BATCH)), leaseMillis));
            }
        }
        long boundMillis = Math.max(1, leaseMillis / 3);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        return () -> lost(sent, locks.size(), deadline, boundMillis);
    }

    /** One renewal script call on its way; its reply lists the (1-based) positions of the locks found lost. */
    private record RenewalBatch(List<WatchedLock> locks, CompletableFuture<List<?>> reply) {
    }

    private RenewalBatch sendBatch(List<WatchedLock> batch, long leaseMillis) {
        boolean leaseSets = batch.get(0).leaseSet() != null;
        int keysPerLock = leaseSets ? 2 : 1;
        int keyCount = batch.size() * keysPerLock;
        byte[][] keysAndArgs = new byte[keyCount + 1 + batch.size()][];
        keysAndArgs[keyCount] = bytes(Long.toString(leaseMillis));
        for (int i = 0; i < batch.size(); i++) {
            WatchedLock lock = batch.get(i);
            keysAndArgs[i * keysPerLock] = bytes(lock.redisKey());
            if (leaseSets) {
                keysAndArgs[i * keysPerLock + 1] = bytes(lock.leaseSet());
            }
            keysAndArgs[keyCount + 1 + i] = bytes(lock.ownerField());
        }
        return new RenewalBatch(batch, transport.runAsync(RENEWALS, batch.get(0).redisKey(), leaseSets ? LockScript.RENEW_LEASES : LockScript.RENEW,
                ReturnType.MULTI, keyCount, keysAndArgs));
    }

    private static Set<WatchedLock> lost(List<RenewalBatch> batches, int lockCount, long deadline, long boundMillis) {
        Set<WatchedLock> lost = new HashSet<>();
        Throwable failure = null;
        Set<WatchedLock> unrenewed = new HashSet<>();
        for (RenewalBatch batch : batches) {
            try {
                for (Object position : batch.reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    lost.add(batch.locks.get(((Number) position).intValue() - 1));
                }
            } catch (ExecutionException | TimeoutException | InterruptedException | RuntimeException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                Throwable failed = e instanceof ExecutionException ? e.getCause() : e instanceof RuntimeException ? e
                        : new IllegalStateException((e instanceof TimeoutException ? "No reply within " + boundMillis + " ms (a third of the watchdog timeout)"
                        : "Interrupted") + " renewing " + batch.locks.size() + " lock(s) from " + batch.locks.get(0).redisKey(), e);
                unrenewed.addAll(batch.locks);
                if (failure == null) {
                    failure = failed;
                } else {
                    failure.addSuppressed(failed);
                }
            }
        }
        if (failure != null) {
            String which = unrenewed.size() == lockCount ? "None of the " + lockCount + " lock(s) could be renewed: "
                    : unrenewed.size() + " of " + lockCount + " lock(s) could not be renewed (the others were): ";
            throw new PartialRenewalException(which + failure.getMessage(), failure, lost, unrenewed);
        }
        return lost;
    }

    public <T> T await(CompletableFuture<T> reply) {
        return transport.await(reply);
    }

    /** For calls that are no lock script: an operator's look at a lock, its force-release. */
    public ScriptTransport transport() {
        return transport;
    }

    private static final byte[] ONE = {'1'};
    private static final byte[] ZERO = {'0'};

    private static byte[] flag(boolean set) {
        return set ? ONE : ZERO;
    }

    private static long number(List<?> reply, int index) {
        return ((Number) reply.get(index)).longValue();
    }

    public static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
