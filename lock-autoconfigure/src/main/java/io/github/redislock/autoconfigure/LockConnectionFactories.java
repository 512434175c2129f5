package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.Set;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Connection factories that redis-lock builds for itself, apart from the application's: one per
 * Redlock master, and the dedicated Redis of {@code redis-lock.redis.*}. Each gives up connecting and
 * answering after its timeout, so a slow Redis cannot stall a lock call for Lettuce's default minute.
 */
final class LockConnectionFactories {

    private LockConnectionFactories() {
    }

    /** One Redis server named by a {@code redis://} or {@code rediss://} URL, credentials and database included. */
    static LettuceConnectionFactory standalone(RedisURI uri, Duration timeout) {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
        server.setDatabase(uri.getDatabase());
        // Lettuce 7 (Boot 4) keeps a URI's user and password only behind its credentials provider, which
        // Lettuce 6 (Boot 3.5) has too; for a URI's own credentials it answers at once.
        RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
        if (credentials != null && credentials.hasUsername()) {
            server.setUsername(credentials.getUsername());
        }
        if (credentials != null && credentials.hasPassword()) {
            server.setPassword(credentials.getPassword());
        }
        return started(server, timeout, uri.isSsl());
    }

    /**
     * The dedicated Redis of {@code redis-lock.redis.*}: a URL, a Sentinel group or a Cluster. The
     * username and password are the login of every server of the form: the Cluster's nodes, or the
     * Sentinel group's data nodes and the Sentinels themselves (a Sentinel with {@code requirepass}
     * or an ACL asks for it too).
     */
    static LettuceConnectionFactory dedicated(RedisLockProperties.Redis redis) {
        if (redis.getUrl() != null) {
            return standalone(RedisURI.create(redis.getUrl()), redis.getTimeout());
        }
        if (redis.getSentinel().getMaster() != null) {
            RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration(redis.getSentinel().getMaster(),
                    Set.copyOf(redis.getSentinel().getNodes()));
            login(sentinel, redis);
            if (redis.getUsername() != null) {
                sentinel.setSentinelUsername(redis.getUsername());
            }
            if (redis.getPassword() != null) {
                sentinel.setSentinelPassword(RedisPassword.of(redis.getPassword()));
            }
            return started(sentinel, redis.getTimeout(), redis.isSsl());
        }
        RedisClusterConfiguration cluster = new RedisClusterConfiguration(redis.getCluster().getNodes());
        login(cluster, redis);
        return started(cluster, redis.getTimeout(), redis.isSsl());
    }

    private static void login(RedisConfiguration.WithAuthentication servers, RedisLockProperties.Redis redis) {
        if (redis.getUsername() != null) {
            servers.setUsername(redis.getUsername());
        }
        if (redis.getPassword() != null) {
            servers.setPassword(redis.getPassword());
        }
    }

    private static LettuceConnectionFactory started(RedisConfiguration servers, Duration timeout, boolean ssl) {
        ClientOptions options = ClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .timeoutOptions(TimeoutOptions.enabled())
                .build();
        LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
                .commandTimeout(timeout).clientOptions(options);
        if (ssl) {
            client.useSsl();
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(servers, client.build());
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
