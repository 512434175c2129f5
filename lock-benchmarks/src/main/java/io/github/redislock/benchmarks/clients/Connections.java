package io.github.redislock.benchmarks.clients;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Connection factories as Spring Boot builds them by default (a shared native Lettuce connection), to one server or a cluster. */
final class Connections {

    private Connections() {
    }

    static LettuceConnectionFactory lettuceFactory(LockImplementation.ClientSettings settings) {
        LettuceClientConfiguration client = LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(60)).build();
        LettuceConnectionFactory factory = settings.cluster()
                ? new LettuceConnectionFactory(new RedisClusterConfiguration(settings.clusterNodes()), client)
                : new LettuceConnectionFactory(new RedisStandaloneConfiguration(settings.host(), settings.port()), client);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
