package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.github.redislock.Locker;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs the per-call work of {@link DistributedLockInterceptor} except the {@code Locker} calls
 * themselves, so the annotation's own cost can be timed without Redis round trips: the definition
 * lookup in its cache, the SpEL key evaluation with the parsed expression, the wait resolution, the
 * caller-transaction check, and the two {@code Locker} lookups (acquire and release each look it up,
 * as the auto-configuration hands the interceptor a lazy supplier). The first three are the shipped
 * package-private code, which is why this probe lives in the library's package (in the benchmark
 * module: it is a measuring instrument, not part of the library); the rest mirrors the interceptor's
 * steps and must follow it when it changes.
 */
public final class AdviceWorkProbe {

    private final LockDefinitions definitions;
    private final Object target;
    private final Method method;
    private final Supplier<Locker> locker;
    private final Supplier<Duration> defaultWait;

    /**
     * @param bean        the application's (proxied) bean; the interceptor sees its target, so does the probe
     * @param method      the annotated method
     * @param locker      the Locker as the auto-configuration hands it to the interceptor
     * @param defaultWait the wait of annotations that name none, as the auto-configuration hands it to the interceptor
     * @throws IllegalArgumentException when the method carries no {@link DistributedLock}
     */
    public AdviceWorkProbe(ConfigurableBeanFactory beanFactory, Object bean, Method method, Supplier<Locker> locker, Supplier<Duration> defaultWait) {
        this.definitions = new LockDefinitions(beanFactory);
        Object singletonTarget = AopProxyUtils.getSingletonTarget(bean);
        this.target = singletonTarget != null ? singletonTarget : bean;
        this.method = method;
        this.locker = locker;
        this.defaultWait = defaultWait;
        if (definitions.find(method, AopUtils.getTargetClass(target)) == null) {
            throw new IllegalArgumentException(method + " carries no @DistributedLock: nothing to probe");
        }
    }

    /**
     * One call's advice work with these arguments.
     *
     * @return the keys it would lock, and the Locker it would lock them with
     */
    public List<Object> adviseWithoutLocking(Object... args) {
        LockDefinition definition = definitions.find(method, AopUtils.getTargetClass(target));
        List<String> keys = definition.keys(target, args);
        Duration wait = definition.waitTime(defaultWait.get());
        boolean callerTransaction = TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
        Locker acquiring = locker.get();
        List<String> taken = new ArrayList<>(keys.size());
        taken.addAll(keys);
        Locker releasing = locker.get();
        return List.of(taken, wait, callerTransaction, acquiring, releasing);
    }
}
