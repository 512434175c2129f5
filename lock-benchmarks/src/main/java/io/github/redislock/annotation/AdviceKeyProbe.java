package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;

/**
 * Runs the per-call work {@link DistributedLockInterceptor} does before its first {@code Locker}
 * call (definition lookup in the cache, wait resolution, SpEL key evaluation with the parsed
 * expression) and nothing else, so the annotation's own cost can be timed without Redis round trips.
 * It lives in the library's package, in the benchmark module, to run the shipped package-private
 * code rather than a copy of it; it is a measuring instrument, not part of the library.
 */
public final class AdviceKeyProbe {

    private final LockDefinitions definitions;
    private final Object target;
    private final Method method;
    private final Supplier<Duration> defaultWait;

    /**
     * @param bean        the application's (proxied) bean; the interceptor sees its target, so does the probe
     * @param method      the annotated method
     * @param defaultWait the wait of annotations that name none, as the interceptor gets it
     * @throws IllegalArgumentException when the method carries no {@link DistributedLock}
     */
    public AdviceKeyProbe(ConfigurableBeanFactory beanFactory, Object bean, Method method, Supplier<Duration> defaultWait) {
        this.definitions = new LockDefinitions(beanFactory);
        Object singletonTarget = AopProxyUtils.getSingletonTarget(bean);
        this.target = singletonTarget != null ? singletonTarget : bean;
        this.method = method;
        this.defaultWait = defaultWait;
        if (definitions.find(method, AopUtils.getTargetClass(target)) == null) {
            throw new IllegalArgumentException(method + " carries no @DistributedLock: nothing to probe");
        }
    }

    /** The lock keys of one call with these arguments, worked out as the interceptor works them out. */
    public List<String> keys(Object... args) {
        LockDefinition definition = definitions.find(method, AopUtils.getTargetClass(target));
        if (definition.waitTime(defaultWait.get()).isNegative()) {
            throw new IllegalStateException("negative wait on " + definition.name);
        }
        return definition.keys(target, args);
    }
}
