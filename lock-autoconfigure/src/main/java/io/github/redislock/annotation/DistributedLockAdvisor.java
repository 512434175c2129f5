package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.redislock.AsyncLocker;
import io.github.redislock.Locker;

import org.aopalliance.aop.Advice;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Applies {@link DistributedLock}: matches annotated methods (checking each annotation when its bean
 * is proxied, and every one against the Locker once the singletons exist, so mistakes stop the
 * application at startup) and wraps them in the lock.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor implements SmartInitializingSingleton {

    private final transient LockDefinitions definitions;
    private final transient DistributedLockInterceptor interceptor;
    private final transient Pointcut pointcut;
    private final transient Supplier<Locker> locker;

    /**
     * @param locker                  called once, on first use (creating the advisor early must not create Redis beans early),
     *                                and its result kept: a bean lookup on every call costs more than the advice's own work
     * @param defaultWait             the wait for annotations that name none, asked on every call that needs it
     * @param releaseAfterTransaction whether a caller's transaction holds the lock until it completes
     */
    public DistributedLockAdvisor(ConfigurableBeanFactory beanFactory, Supplier<Locker> locker, Supplier<Duration> defaultWait,
                                  boolean releaseAfterTransaction) {
        this(beanFactory, locker, () -> null, defaultWait, releaseAfterTransaction);
    }

    /**
     * @param asyncLocker called once, on first use, like {@code locker}; what it returns (null for none) takes the
     *                    single-key locks of methods returning a future, {@code Mono} or {@code Flux} without a thread
     */
    public DistributedLockAdvisor(ConfigurableBeanFactory beanFactory, Supplier<Locker> locker, Supplier<AsyncLocker> asyncLocker,
                                  Supplier<Duration> defaultWait, boolean releaseAfterTransaction) {
        this.definitions = new LockDefinitions(beanFactory);
        this.locker = SingletonSupplier.of(locker);
        SingletonSupplier<Optional<AsyncLocker>> async = SingletonSupplier.of(() -> Optional.ofNullable(asyncLocker.get()));
        this.interceptor = new DistributedLockInterceptor(definitions, this.locker, () -> async.obtain().orElse(null),
                defaultWait, releaseAfterTransaction);
        this.pointcut = new StaticMethodMatcherPointcut() {
            {
                setClassFilter(ClassFilter.TRUE);
            }

            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)
                        && definitions.find(method, targetClass) != null;
            }
        };
    }

    /** Every annotated method found while the beans were proxied must be one the Locker can serve. */
    @Override
    public void afterSingletonsInstantiated() {
        definitions.requireOfferedBy(locker);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
