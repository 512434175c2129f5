package io.github.redislock.annotation;

import java.lang.reflect.Method;

/** What {@code #root} means in a {@link DistributedLock} key expression. */
public final class LockKeyExpressionRoot {

    private final Method method;
    private final Object target;
    private final Class<?> targetClass;
    private final Object[] args;

    LockKeyExpressionRoot(Method method, Object target, Class<?> targetClass, Object[] args) {
        this.method = method;
        this.target = target;
        this.targetClass = targetClass;
        this.args = args;
    }

    /** The annotated method. */
    public Method getMethod() {
        return method;
    }

    public String getMethodName() {
        return method.getName();
    }

    /** The bean the method is called on. */
    public Object getTarget() {
        return target;
    }

    public Class<?> getTargetClass() {
        return targetClass;
    }

    /** The arguments of the call. */
    public Object[] getArgs() {
        return args;
    }
}
