package io.github.redislock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.protocol.CommandType;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Refuses to start on a server older than redis-lock supports, with a message naming the server's
 * kind and version and the minimum for that kind: Redis {@value #MINIMUM_REDIS_VERSION}, Valkey
 * {@value #MINIMUM_VALKEY_VERSION}.
 *
 * <p>Why: Redis 6.2 is the oldest server the build tests (the embedded-redis jar's 6.2), and the
 * documented least-privilege ACL line needs it ({@code resetchannels} and {@code &pattern} channel
 * rules); every Valkey release (7.2 onwards) has what 6.2 has. An older server would fail later and
 * less clearly, at the first lock or at {@code ACL SETUSER}. Kind and version come from what the
 * server says, never from a setting: the {@code HELLO} reply (Redis 6.0+, every Valkey), which even the
 * least-privilege user may send without a trace in the ACL log; a server that does not know
 * {@code HELLO} (older than Redis 6.0), or a connection that cannot send it, is asked
 * {@code INFO server} (see {@link RedisServerIdentity}). A server of another kind is logged and not
 * refused. Optional commands are never chosen by this version: each is decided by asking the server
 * whether it has it (sharded pub/sub: {@code COMMAND INFO SPUBLISH}, see the core's
 * {@code ShardedChannels}).
 *
 * <p>Every server the locks use is checked: the one Redis (the application's or
 * {@code redis-lock.redis.*}), or each Redlock master. A server that cannot be reached at startup is
 * not checked (logged): the library starts without Redis and reports failures per operation, and this
 * check must not change that.
 */
final class RedisServerVersionCheck implements SmartInitializingSingleton {

    /** The oldest Redis version redis-lock supports. */
    static final String MINIMUM_REDIS_VERSION = "6.2.0";

    /** The oldest Valkey version redis-lock supports: the first release. */
    static final String MINIMUM_VALKEY_VERSION = "7.2.0";

    /** The minimum version of each server kind redis-lock supports. */
    static final Map<String, String> MINIMUM_VERSIONS = Map.of(RedisServerIdentity.REDIS, MINIMUM_REDIS_VERSION,
            RedisServerIdentity.VALKEY, MINIMUM_VALKEY_VERSION);

    private static final Log log = LogFactory.getLog(RedisServerVersionCheck.class);
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private final Map<String, RedisConnectionFactory> servers;
    private final Map<String, String> minimumVersions;

    /** @param servers each server the locks use, by how a message names it (e.g. "the Redis of spring.data.redis.*") */
    RedisServerVersionCheck(Map<String, RedisConnectionFactory> servers) {
        this(servers, MINIMUM_VERSIONS);
    }

    /** With other minimums: the seam that lets a test prove the refusal against the server it has. */
    RedisServerVersionCheck(Map<String, RedisConnectionFactory> servers, Map<String, String> minimumVersions) {
        this.servers = new LinkedHashMap<>(servers);
        this.minimumVersions = Map.copyOf(minimumVersions);
    }

    /** The servers checked, by how a message names them. */
    Set<String> servers() {
        return Collections.unmodifiableSet(servers.keySet());
    }

    @Override
    public void afterSingletonsInstantiated() {
        servers.forEach((where, connectionFactory) -> {
            RedisServerIdentity identity;
            try {
                identity = serverIdentity(connectionFactory);
            }
            catch (RuntimeException ex) {
                log.warn("redis-lock could not ask " + where + " which server it is at startup, so it did not check its version: "
                        + ex.getMessage());
                return;
            }
            check(identity, where);
        });
    }

    /**
     * Refuses a server older than the minimum of its kind; logs one of a kind that has no minimum.
     *
     * @param where how the message names the server
     * @throws IllegalStateException naming the server's kind, its version and the minimum
     */
    void check(RedisServerIdentity identity, String where) {
        String minimum = minimumVersions.get(identity.kind());
        if (minimum == null) {
            log.warn("redis-lock is tested on Redis and Valkey, but " + where + " says it is " + identity
                    + "; its version is not checked");
            return;
        }
        RedisServerIdentity oldest = new RedisServerIdentity(identity.kind(), minimum);
        if (compare(identity.version(), minimum) < 0) {
            throw new IllegalStateException("redis-lock needs " + oldest + " or later, but " + where + " is " + identity
                    + "; upgrade the server");
        }
        log.debug("redis-lock runs on " + identity + " (" + where + ")");
    }

    /** The kind and version the server reports, e.g. Valkey 8.0.1. */
    static RedisServerIdentity serverIdentity(RedisConnectionFactory connectionFactory) {
        try (RedisConnection connection = connectionFactory.getConnection()) {
            if (connection.getNativeConnection() instanceof BaseRedisAsyncCommands<?, ?> commands) {
                Map<String, String> hello = hello(castToBytes(commands), timeout(connectionFactory));
                if (hello != null) {
                    return RedisServerIdentity.fromHello(hello);
                }
            }
            Properties info = connection.serverCommands().info("server");
            Map<String, String> fields = new HashMap<>();
            if (info != null) {
                info.stringPropertyNames().forEach(name -> fields.put(name, info.getProperty(name)));
            }
            return RedisServerIdentity.fromInfo(fields);
        }
    }

    /** The HELLO reply's fields, or null when the server does not know HELLO (older than Redis 6.0). */
    private static Map<String, String> hello(BaseRedisAsyncCommands<byte[], byte[]> commands, Duration timeout) {
        List<Object> reply;
        try {
            reply = commands.dispatch(CommandType.HELLO, new ArrayOutput<>(ByteArrayCodec.INSTANCE))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the HELLO reply", ex);
        }
        catch (Exception ex) {
            String message = String.valueOf(ex.getMessage());
            if (message.contains("unknown command")) {
                return null;
            }
            throw new IllegalStateException("HELLO failed: " + message, ex);
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            if (!(reply.get(i + 1) instanceof List<?>)) {
                fields.put(text(reply.get(i)), text(reply.get(i + 1)));
            }
        }
        return fields;
    }

    private static Duration timeout(RedisConnectionFactory connectionFactory) {
        if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
            return lettuce.getClientConfiguration().getCommandTimeout();
        }
        return DEFAULT_TIMEOUT;
    }

    @SuppressWarnings("unchecked")
    private static BaseRedisAsyncCommands<byte[], byte[]> castToBytes(BaseRedisAsyncCommands<?, ?> commands) {
        // Spring Data Redis opens its Lettuce connections with a byte[] codec.
        return (BaseRedisAsyncCommands<byte[], byte[]>) commands;
    }

    private static String text(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    /** Compares dotted versions numerically ({@code 6.10} is after {@code 6.2}); missing parts count as 0. */
    static int compare(String version, String other) {
        String[] left = version.split("\\.");
        String[] right = other.split("\\.");
        for (int i = 0; i < Math.max(left.length, right.length); i++) {
            int difference = Integer.compare(number(left, i), number(right, i));
            if (difference != 0) {
                return difference;
            }
        }
        return 0;
    }

    private static int number(String[] parts, int index) {
        if (index >= parts.length) {
            return 0;
        }
        String digits = parts[index].replaceAll("\\D.*", "");
        return digits.isEmpty() ? 0 : Integer.parseInt(digits);
    }
}
