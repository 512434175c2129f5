package io.github.redislock.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.Locker;
import io.github.redislock.core.RedlockLocker;
import io.lettuce.core.RedisURI;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * When {@code redis-lock.redlock.nodes} lists independent masters, the Locker follows the Redlock
 * algorithm over them instead of using the application's Redis: no {@code RedisConnectionFactory}
 * of the application is needed, and the server version checked at startup is each master's.
 */
@AutoConfiguration(before = RedisLockAutoConfiguration.class)
@Conditional({RedisLockAutoConfiguration.OnEnabled.class, RedisLockRedlockAutoConfiguration.OnRedlockNodes.class})
@EnableConfigurationProperties({RedisLockProperties.class, RedisLockIntegrationProperties.class, RedisLockLeaderProperties.class})
public class RedisLockRedlockAutoConfiguration {

    /** @param settings checked first: a setting without effect stops startup before any connection */
    @Bean
    @ConditionalOnMissingBean
    RedlockConnections redlockConnections(RedisLockProperties properties, RedisLockSettingsCheck settings) {
        RedisLockProperties.Redlock redlock = properties.getRedlock();
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        for (String url : redlock.getNodes()) {
            factories.add(LockConnectionFactories.standalone(RedisURI.create(url), redlock.getNodeTimeout()));
        }
        return new RedlockConnections(factories, redlock.getNodes().stream().map(RedisLockProperties::withoutPassword).toList());
    }

    /**
     * @param integration refused when set: there is no Spring Integration registry on Redlock (see {@link RedisLockIntegrationAutoConfiguration})
     * @param leader      its roles refused: there is no leader election on Redlock, whose Locker gives no fencing tokens (the terms)
     */
    @Bean
    @ConditionalOnMissingBean(Locker.class)
    RedlockLocker locker(RedlockConnections connections, RedisLockProperties properties, ApplicationEventPublisher events,
                         RedisLockIntegrationProperties integration, RedisLockLeaderProperties leader) {
        if (integration.getLease() != null || !leader.getRoles().isEmpty()) {
            throw new IllegalStateException((integration.getLease() != null ? "redis-lock.integration.lease" : "redis-lock.leader.roles")
                    + " has no effect with redis-lock.redlock.nodes: the Spring Integration registry and the leader election need fencing"
                    + " tokens, which the Redlock Locker does not give (its masters count tokens each on its own), so neither exists there. Unset it.");
        }
        RedisLockProperties.Redlock redlock = properties.getRedlock();
        return new RedlockLocker(connections.asFactories(), connections.names(), redlock.getNodeTimeout(),
                redlock.getRetryDelay(), properties.getWatchdogTimeout(), properties.getKeyPrefix(), events);
    }

    @Bean
    RedisServerVersionCheck redlockServerVersionCheck(RedlockConnections connections) {
        Map<String, RedisConnectionFactory> masters = new LinkedHashMap<>();
        for (int i = 0; i < connections.factories().size(); i++) {
            masters.put("the Redlock master " + connections.names().get(i), connections.factories().get(i));
        }
        return new RedisServerVersionCheck(masters);
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
            List<String> nodes = nodes(context.getEnvironment());
            return nodes.isEmpty() ? ConditionOutcome.noMatch("redis-lock.redlock.nodes is empty")
                    : ConditionOutcome.match("redis-lock.redlock.nodes lists " + nodes.size() + " masters");
        }

        static List<String> nodes(Environment environment) {
            return Binder.get(environment).bind("redis-lock.redlock.nodes", Bindable.listOf(String.class)).orElse(List.of());
        }
    }

    /** Matches when {@link OnRedlockNodes} does not: the locks live on one Redis. */
    static class OnNoRedlockNodes extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return OnRedlockNodes.nodes(context.getEnvironment()).isEmpty()
                    ? ConditionOutcome.match("redis-lock.redlock.nodes is empty: the locks live on one Redis")
                    : ConditionOutcome.noMatch("redis-lock.redlock.nodes is set: the Redlock masters replace the one Redis");
        }
    }
}
