package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

/** One annotated method, parsed and checked once: its key expressions, timings and failure handling. */
final class LockDefinition {

    enum ReturnKind { PLAIN, COMPLETION_STAGE, MONO, FLUX }

    final Method method;
    final Class<?> targetClass;
    final String name;
    final List<String> keyTexts;
    private final List<Expression> keyExpressions;
    /** Milliseconds; {@link DistributedLock#DEFAULT_WAIT} defers to the property at call time. */
    final long waitMillis;
    final long leaseMillis;
    final LockFailurePolicy onFailure;
    final Fallback fallback;
    final ReturnKind returnKind;
    private final ParameterNameDiscoverer parameterNames;
    private final BeanResolver beanResolver;

    LockDefinition(Method method, Class<?> targetClass, String name, List<String> keyTexts, List<Expression> keyExpressions,
                   long waitMillis, long leaseMillis, LockFailurePolicy onFailure, Fallback fallback, ReturnKind returnKind,
                   ParameterNameDiscoverer parameterNames, BeanResolver beanResolver) {
        this.method = method;
        this.targetClass = targetClass;
        this.name = name;
        this.keyTexts = keyTexts;
        this.keyExpressions = keyExpressions;
        this.waitMillis = waitMillis;
        this.leaseMillis = leaseMillis;
        this.onFailure = onFailure;
        this.fallback = fallback;
        this.returnKind = returnKind;
        this.parameterNames = parameterNames;
        this.beanResolver = beanResolver;
    }

    /**
     * The lock keys for one call, sorted and without duplicates so that every method takes overlapping
     * keys in the same order.
     *
     * @throws IllegalArgumentException when a key cannot be evaluated or comes out null or blank
     */
    List<String> keys(Object target, Object[] args) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new LockKeyExpressionRoot(method, target, targetClass, args), method, args, parameterNames);
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        TreeSet<String> keys = new TreeSet<>();
        for (int i = 0; i < keyExpressions.size(); i++) {
            Object value;
            try {
                value = keyExpressions.get(i).getValue(context);
            } catch (EvaluationException e) {
                throw badKey(keyTexts.get(i), args, "could not be evaluated (" + e.getMessage() + ")", e);
            }
            String key = value == null ? null : value.toString();
            if (key == null || key.isBlank()) {
                throw badKey(keyTexts.get(i), args, "evaluated to " + (key == null ? "null" : "a blank string"), null);
            }
            keys.add(key);
        }
        return List.copyOf(keys);
    }

    Duration waitTime(Duration defaultWait) {
        return waitMillis == DistributedLock.DEFAULT_WAIT ? defaultWait : Duration.ofMillis(waitMillis);
    }

    private IllegalArgumentException badKey(String expression, Object[] args, String problem, Exception cause) {
        String types = Arrays.stream(args).map(arg -> arg == null ? "null" : arg.getClass().getSimpleName()).toList().toString();
        return new IllegalArgumentException("@DistributedLock key \"" + expression + "\" on " + name + " " + problem
                + " for arguments of types " + types + "; the method was not run", cause);
    }

    /** The method to run instead when the lock cannot be taken. */
    record Fallback(Method method, boolean takesException) {
    }
}
