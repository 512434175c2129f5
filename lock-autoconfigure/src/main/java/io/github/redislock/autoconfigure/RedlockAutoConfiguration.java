package io.github.redislock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.Locker;
import io.github.redislock.RedlockLocker;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * When {@code redis-lock.redlock.nodes} lists independent masters, the Locker follows the Redlock
 * algorithm over them instead of using the application's Redis.
 */
@AutoConfiguration(before = RedisLockAutoConfiguration.class)
@ConditionalOnProperty(prefix = "redis-lock", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(RedlockAutoConfiguration.OnRedlockNodes.class)
@EnableConfigurationProperties(RedisLockProperties.class)
public class RedlockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RedlockConnections redlockConnections(RedisLockProperties properties) {
        RedisLockProperties.Redlock redlock = properties.getRedlock();
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        for (String url : redlock.getNodes()) {
            factories.add(connectionFactory(RedisURI.create(url), redlock));
        }
        return new RedlockConnections(factories, redlock.getNodes().stream().map(RedlockAutoConfiguration::withoutPassword).toList());
    }

    @Bean
    @ConditionalOnMissingBean(Locker.class)
    RedlockLocker locker(RedlockConnections connections, RedisLockProperties properties, ApplicationEventPublisher events) {
        RedisLockProperties.Redlock redlock = properties.getRedlock();
        return new RedlockLocker(connections.asFactories(), connections.names(), redlock.getNodeTimeout(),
                redlock.getRetryDelay(), properties.getWatchdogTimeout(), properties.getKeyPrefix(), events);
    }

    /** A connection per master that gives up after the node timeout, so one slow master cannot stall an attempt. */
    private static LettuceConnectionFactory connectionFactory(RedisURI uri, RedisLockProperties.Redlock redlock) {
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
        ClientOptions options = ClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(redlock.getNodeTimeout()).build())
                .timeoutOptions(TimeoutOptions.enabled())
                .build();
        LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
                .commandTimeout(redlock.getNodeTimeout()).clientOptions(options);
        if (uri.isSsl()) {
            client.useSsl();
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(server, client.build());
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    private static String withoutPassword(String url) {
        return url.replaceFirst("//[^@/]*@", "//");
    }

    /** The masters' connections; closed with the context, after the Locker that uses them. */
    record RedlockConnections(List<LettuceConnectionFactory> factories, List<String> names) implements AutoCloseable {

        List<RedisConnectionFactory> asFactories() {
            return List.copyOf(factories);
        }

        @Override
        public void close() {
            factories.forEach(LettuceConnectionFactory::destroy);
        }
    }

    /** Matches when the nodes list is bound, in either its comma-separated or its indexed form. */
    static class OnRedlockNodes extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            List<String> nodes = Binder.get(context.getEnvironment())
                    .bind("redis-lock.redlock.nodes", Bindable.listOf(String.class)).orElse(List.of());
            return nodes.isEmpty() ? ConditionOutcome.noMatch("redis-lock.redlock.nodes is empty")
                    : ConditionOutcome.match("redis-lock.redlock.nodes lists " + nodes.size() + " masters");
        }
    }
}
