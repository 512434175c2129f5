package io.github.redislock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
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
 * Refuses to start on a Redis server older than {@value #MINIMUM_VERSION}, with a message naming the
 * version found and the minimum.
 *
 * <p>Why: 6.2 is the oldest server the build tests (the embedded-redis jar's 6.2.11), and the
 * documented least-privilege ACL line needs it ({@code resetchannels} and {@code &pattern} channel
 * rules). An older server would fail later and less clearly, at the first lock or at
 * {@code ACL SETUSER}. The version comes from what the server says, never from a setting: the
 * {@code HELLO} reply (Redis 6.0+), which even the least-privilege user may send without a trace in
 * the ACL log; a server that does not know {@code HELLO} is older than 6.0, and then
 * {@code INFO server} is asked.
 *
 * <p>A server that cannot be reached at startup is not checked (logged): the library starts without
 * Redis and reports failures per operation, and this check must not change that.
 */
final class RedisServerVersionCheck implements SmartInitializingSingleton {

    /** The oldest Redis version redis-lock supports. */
    static final String MINIMUM_VERSION = "6.2.0";

    private static final Log log = LogFactory.getLog(RedisServerVersionCheck.class);
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private final RedisConnectionFactory connectionFactory;
    private final String minimumVersion;

    RedisServerVersionCheck(RedisConnectionFactory connectionFactory) {
        this(connectionFactory, MINIMUM_VERSION);
    }

    /** With another minimum: the seam that lets a test prove the refusal against the server it has. */
    RedisServerVersionCheck(RedisConnectionFactory connectionFactory, String minimumVersion) {
        this.connectionFactory = connectionFactory;
        this.minimumVersion = minimumVersion;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String version;
        try {
            version = serverVersion();
        }
        catch (RuntimeException ex) {
            log.warn("redis-lock could not read the Redis server version at startup, so it did not check it against the minimum "
                    + minimumVersion + ": " + ex.getMessage());
            return;
        }
        if (compare(version, minimumVersion) < 0) {
            throw new IllegalStateException("redis-lock needs Redis " + minimumVersion + " or later, but the server reports version "
                    + version + " (the Redis of redis-lock.redis.* if set, else of spring.data.redis.*); upgrade the server");
        }
    }

    /** The version the server reports, e.g. {@code 7.0.15}. */
    String serverVersion() {
        try (RedisConnection connection = connectionFactory.getConnection()) {
            if (connection.getNativeConnection() instanceof BaseRedisAsyncCommands<?, ?> commands) {
                String fromHello = helloVersion(castToBytes(commands));
                if (fromHello != null) {
                    return fromHello;
                }
            }
            Properties info = connection.serverCommands().info("server");
            String version = info == null ? null : info.getProperty("redis_version");
            if (version == null) {
                throw new IllegalStateException("the server's INFO server has no redis_version");
            }
            return version;
        }
    }

    /** {@code version} from the HELLO reply, or null when the server does not know HELLO (older than 6.0). */
    private String helloVersion(BaseRedisAsyncCommands<byte[], byte[]> commands) {
        List<Object> reply;
        try {
            reply = commands.dispatch(CommandType.HELLO, new ArrayOutput<>(ByteArrayCodec.INSTANCE))
                    .get(timeout().toMillis(), TimeUnit.MILLISECONDS);
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
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            if ("version".equals(text(reply.get(i)))) {
                return text(reply.get(i + 1));
            }
        }
        throw new IllegalStateException("the HELLO reply has no version: " + reply);
    }

    private Duration timeout() {
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
