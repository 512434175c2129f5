package io.github.redislock.annotation;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.util.List;

import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.AopProxyUtils;

/**
 * A measuring hook: runs the per-call work of the application's own {@link DistributedLockInterceptor}
 * except the {@code Locker} calls themselves, so that the annotation's own cost can be timed without
 * Redis round trips. That work is {@link DistributedLockInterceptor#prepare} (definition lookup, SpEL
 * key evaluation, wait resolution), the caller-transaction check, and the two
 * {@link DistributedLockInterceptor#locker()} lookups of an acquire and a release, through the
 * suppliers the auto-configuration gave the advisor.
 *
 * <p>Why it is part of the library: the steps are package-private, and a probe that called copies of
 * them would time the copies. {@code lock-benchmarks} uses it for its annotation-overhead scenario;
 * applications have no use for it at run time.
 */
public final class AdviceWorkProbe {

    private final DistributedLockInterceptor interceptor;
    private final Object target;
    private final Method method;

    /**
     * @param advisor the application's advisor bean
     * @param bean    the application's (proxied) bean; the interceptor sees its target, so does the probe
     * @param method  the annotated method
     * @throws IllegalArgumentException when the method carries no {@link DistributedLock}
     */
    public AdviceWorkProbe(DistributedLockAdvisor advisor, Object bean, Method method) {
        this.interceptor = (DistributedLockInterceptor) advisor.getAdvice();
        Object singletonTarget = AopProxyUtils.getSingletonTarget(bean);
        this.target = singletonTarget != null ? singletonTarget : bean;
        this.method = method;
        if (interceptor.prepare(new Invocation(target, method, new Object[method.getParameterCount()])) == null) {
            throw new IllegalArgumentException(method + " carries no @DistributedLock: nothing to probe");
        }
    }

    /**
     * One call's advice work with these arguments.
     *
     * @return what it would lock with: the call (its keys and wait), whether a caller's transaction holds it, the Locker twice
     */
    public List<Object> adviseWithoutLocking(Object... args) {
        DistributedLockInterceptor.LockedCall call = interceptor.prepare(new Invocation(target, method, args));
        return List.of(call, call.releasedWithCallerTransaction(), interceptor.locker(), interceptor.locker());
    }

    /** The invocation a proxy hands the interceptor, reduced to what {@code prepare} reads; the proxy hop is timed apart. */
    private record Invocation(Object getThis, Method getMethod, Object[] getArguments) implements MethodInvocation {

        @Override
        public Object proceed() {
            throw new UnsupportedOperationException("The probe never runs the method");
        }

        @Override
        public AccessibleObject getStaticPart() {
            return getMethod;
        }
    }
}
