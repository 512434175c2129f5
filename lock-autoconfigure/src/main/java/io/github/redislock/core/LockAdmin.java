package io.github.redislock.core;

import static io.github.redislock.core.script.LockCommands.bytes;

import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockScript;
import io.github.redislock.LockRedisException;
import io.github.redislock.LockLostException;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.connection.ReturnType;

/** What an operator needs beyond the Locker, for the {@code locks} Actuator endpoint: the Redis-side state of any lock and a force-release. */
public final class LockAdmin {

    private final LockCommands commands;
    private final String keyPrefix;

    LockAdmin(LockCommands commands, String keyPrefix) {
        this.commands = commands;
        this.keyPrefix = keyPrefix;
    }

    /**
     * A lock as Redis has it now.
     *
     * @param type      the Redis type of the lock key: {@code hash} for a lock, {@code none} when free
     * @param holds     hold count per owner field ({@code <owner>:r} / {@code <owner>:w} for a read-write lock); empty when free
     * @param ttlMillis remaining lease in ms; -2 when the key does not exist, -1 when it has no expiry
     */
    public record RedisState(String key, String redisKey, String type, Map<String, Long> holds, long ttlMillis) {
    }

    public RedisState state(String key) {
        LockKeys keys = LockKeys.of(keyPrefix, key);
        byte[] name = bytes(keys.name());
        return commands.transport().call(keys.name(), connection -> {
            DataType type = connection.keyCommands().type(name);
            Map<String, Long> holds = new LinkedHashMap<>();
            if (type == DataType.HASH) {
                Map<byte[], byte[]> fields = connection.hashCommands().hGetAll(name);
                boolean readWrite = fields.keySet().stream().anyMatch(field -> string(field).equals("mode"));
                fields.forEach((field, count) -> {
                    String owner = string(field);
                    // a plain lock's waiters mark (acquire.lua) has no ':'; a read-write lock counts holds in :r and :w fields
                    if (readWrite ? owner.endsWith(":r") || owner.endsWith(":w") : owner.indexOf(':') >= 0) {
                        holds.put(owner, holdCount(keys, owner, string(count)));
                    }
                });
            }
            Long ttl = connection.keyCommands().pTtl(name);
            return new RedisState(key, keys.name(), type == null ? "none" : type.code(), holds, ttl == null ? -2 : ttl);
        });
    }

    /**
     * Frees the lock whoever holds it, of whatever kind, and wakes its waiters. The former holders keep
     * running: the watchdog reports their lock lost, and their unlock throws {@link LockLostException}.
     *
     * @return the holds removed, as {@link RedisState#holds()}; empty when the lock was free
     * @throws LockRedisException when Redis fails, or the key is not a lock (then it is left untouched)
     */
    public Map<String, Long> forceRelease(String key) {
        LockKeys keys = LockKeys.of(keyPrefix, key);
        List<?> flat = commands.transport().run(keys.name(), LockScript.FORCE_RELEASE, ReturnType.MULTI, 5, bytes(keys.name()), bytes(keys.channel()),
                bytes(keys.leases()), bytes(keys.fence()), bytes(keys.queue()), bytes(keys.turnChannelPrefix()), commands.publishCommand(keys.name()));
        Map<String, Long> removed = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            String owner = string((byte[]) flat.get(i));
            removed.put(owner, holdCount(keys, owner, string((byte[]) flat.get(i + 1))));
        }
        return removed;
    }

    /** The remaining lease of each lock in ms per Redis key (as {@link RedisState#ttlMillis()}), in one pipelined round trip. */
    public Map<String, Long> remainingLeases(Collection<String> redisKeys) {
        if (redisKeys.isEmpty()) {
            return Map.of();
        }
        List<String> ordered = List.copyOf(redisKeys);
        List<Object> ttls = commands.transport().call("(" + ordered.size() + " held locks)", connection -> {
            connection.openPipeline();
            ordered.forEach(redisKey -> connection.keyCommands().pTtl(bytes(redisKey)));
            return connection.closePipeline();
        });
        Map<String, Long> byKey = new HashMap<>();
        for (int i = 0; i < ordered.size(); i++) {
            byKey.put(ordered.get(i), ((Number) ttls.get(i)).longValue());
        }
        return byKey;
    }

    private static long holdCount(LockKeys keys, String owner, String count) {
        try {
            return Long.parseLong(count);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("Redis key " + keys.name() + " is not a lock of this version: field '" + owner
                    + "' holds '" + count + "', not a hold count", e);
        }
    }

    private static String string(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
