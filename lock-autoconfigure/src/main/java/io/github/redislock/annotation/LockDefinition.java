package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.support.StandardEvaluationContext;

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
    /** {@link DistributedLock#holdAtLeast()}; zero when the lock is released as the method returns. */
    final Duration holdAtLeast;
    final LockFailurePolicy onFailure;
    final Fallback fallback;
    final ReturnKind returnKind;
    /** Each variable a key may name, {@code #sku}, {@code #p0} or {@code #a0}, and the index of its argument; built once. */
    private final Map<String, Integer> argumentIndexes;
    private final BeanResolver beanResolver;

    LockDefinition(Method method, Class<?> targetClass, String name, List<String> keyTexts, List<Expression> keyExpressions,
                   long waitMillis, long leaseMillis, Duration holdAtLeast, LockFailurePolicy onFailure, Fallback fallback, ReturnKind returnKind,
                   Map<String, Integer> argumentIndexes, BeanResolver beanResolver) {
        this.method = method;
        this.targetClass = targetClass;
        this.name = name;
        this.keyTexts = keyTexts;
        this.keyExpressions = keyExpressions;
        this.waitMillis = waitMillis;
        this.leaseMillis = leaseMillis;
        this.holdAtLeast = holdAtLeast;
        this.onFailure = onFailure;
        this.fallback = fallback;
        this.returnKind = returnKind;
        this.argumentIndexes = argumentIndexes;
        this.beanResolver = beanResolver;
    }

    /** The variables a key expression of {@code method} may use for its arguments, with their indexes. */
    static Map<String, Integer> argumentIndexes(Method method, ParameterNameDiscoverer parameterNames) {
        String[] names = parameterNames.getParameterNames(method);
        Map<String, Integer> indexes = new HashMap<>();
        for (int i = 0; i < method.getParameterCount(); i++) {
            indexes.put("p" + i, i);
            indexes.put("a" + i, i);
            if (names != null && names[i] != null) {
                indexes.put(names[i], i);
            }
        }
        return Map.copyOf(indexes);
    }

    /**
     * The lock keys for one call, sorted and without duplicates so that every method takes overlapping
     * keys in the same order.
     *
     * @throws IllegalArgumentException when a key cannot be evaluated or comes out null or blank
     */
    List<String> keys(Object target, Object[] args) {
        KeyContext context = new KeyContext(new LockKeyExpressionRoot(method, target, targetClass, args), args);
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        if (keyExpressions.size() == 1) {
            return List.of(key(0, context, args));
        }
        TreeSet<String> keys = new TreeSet<>();
        for (int i = 0; i < keyExpressions.size(); i++) {
            keys.add(key(i, context, args));
        }
        return List.copyOf(keys);
    }

    private String key(int index, KeyContext context, Object[] args) {
        Object value;
        try {
            value = keyExpressions.get(index).getValue(context);
        } catch (EvaluationException e) {
            throw badKey(keyTexts.get(index), args, "could not be evaluated (" + e.getMessage() + ")", e);
        }
        String key = value == null ? null : value.toString();
        if (key == null || key.isBlank()) {
            throw badKey(keyTexts.get(index), args, "evaluated to " + (key == null ? "null" : "a blank string"), null);
        }
        return key;
    }

    /**
     * Resolves the arguments' variables through the indexes built once, where Spring's
     * {@code MethodBasedEvaluationContext} discovers the parameter names and sets three variables per
     * argument on every call: the key is evaluated on every call of the method.
     */
    private final class KeyContext extends StandardEvaluationContext {

        private final Object[] args;

        KeyContext(LockKeyExpressionRoot root, Object[] args) {
            super(root);
            this.args = args;
        }

        @Override
        public Object lookupVariable(String name) {
            Object assigned = super.lookupVariable(name);
            if (assigned != null) {
                return assigned;
            }
            Integer index = argumentIndexes.get(name); // a proxy passes one argument per parameter, varargs as their array
            return index != null && index < args.length ? args[index] : null;
        }
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
