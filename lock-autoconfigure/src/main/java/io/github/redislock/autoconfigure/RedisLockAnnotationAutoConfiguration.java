package io.github.redislock.autoconfigure;

import io.github.redislock.AsyncLocker;
import io.github.redislock.Locker;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.DistributedLockAdvisor;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.function.SingletonSupplier;

/**
 * Makes {@link DistributedLock} work: an advisor around annotated methods, and an auto-proxy creator
 * when the application has none (without one the annotation would silently do nothing).
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnBean(Locker.class)
@Import(RedisLockAnnotationAutoConfiguration.AutoProxyRegistrar.class)
public class RedisLockAnnotationAutoConfiguration {

    /**
     * An infrastructure bean, created while post-processors are set up: it reads its settings straight
     * from the environment and looks the Locker up on first use, so it pulls no other bean in early.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DistributedLockAdvisor distributedLockAdvisor(ConfigurableListableBeanFactory beanFactory, Environment environment,
                                                         ObjectProvider<Locker> locker, ObjectProvider<AsyncLocker> asyncLocker,
                                                         ObjectProvider<RedisLockProperties> properties) {
        RedisLockProperties settings = Binder.get(environment).bindOrCreate("redis-lock", RedisLockProperties.class);
        // An injected ObjectProvider resolves the dependency anew on every getObject(), several microseconds
        // each: look the properties bean up once, and read its (changeable) wait on every call. Without the
        // bean (redis-lock.enabled=false beside the application's own Locker) the settings bound here serve.
        SingletonSupplier<RedisLockProperties> lockProperties = SingletonSupplier.of(() -> properties.getIfAvailable(() -> settings));
        DistributedLockAdvisor advisor = new DistributedLockAdvisor(beanFactory, locker::getObject, asyncLocker::getIfAvailable,
                () -> lockProperties.obtain().getDefaultWaitTime(), settings.isReleaseAfterTransaction());
        advisor.setOrder(settings.getAspectOrder());
        return advisor;
    }

    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
