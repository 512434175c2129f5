package io.github.redislock.autoconfigure;

import io.github.redislock.AsyncLocker;
import io.github.redislock.ReactiveLocker;
import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.RedisReactiveLocker;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The locks that wait without a thread, next to the {@link RedisLocker} they share holds, watchdog and
 * hand-off inbox with: an {@link AsyncLocker} always, a {@link ReactiveLocker} when Reactor is on the
 * classpath. Not for Redlock, whose locks do not queue: neither bean exists there.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnBean(RedisLocker.class)
@Conditional(RedisLockRedlockAutoConfiguration.OnNoRedlockNodes.class)
public class RedisLockAsyncAutoConfiguration {

    /**
     * Closed before the RedisLocker it depends on, so its waits withdraw their queue places first: by
     * {@link LockersLifecycle} when the context closes, while the connection factory still works (the
     * close at the bean's destruction then finds nothing left to do).
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(AsyncLocker.class)
    RedisAsyncLocker asyncLocker(RedisLocker locker) {
        return new RedisAsyncLocker(locker);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "reactor.core.publisher.Mono")
    static class ReactorLockerConfiguration {

        @Bean
        @ConditionalOnMissingBean(ReactiveLocker.class)
        ReactiveLocker reactiveLocker(AsyncLocker asyncLocker) {
            return new RedisReactiveLocker(asyncLocker);
        }
    }
}
