package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;
import io.github.redislock.core.RedlockLocker;
import io.github.redislock.core.script.LockKeys;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@link DistributedLock} on a method (directly, on an interface method, or through a
 * meta-annotation), checks it, and caches the result per method and target class. Checking happens
 * when the bean is proxied at startup, so a broken annotation stops the application instead of
 * failing on the first call.
 */
final class LockDefinitions {

    private static final LockDefinition NOT_ANNOTATED = null;
    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono", LockDefinitions.class.getClassLoader());

    private final ConfigurableBeanFactory beanFactory;
    private final SpelExpressionParser parser;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<MethodClassKey, Optional<LockDefinition>> cache = new ConcurrentHashMap<>();
    /** The classes {@link #requireInterceptable} passed. */
    private final Set<Class<?>> interceptableClasses = ConcurrentHashMap.newKeySet();
    /**
     * The application's Locker, to be asked only once the singletons exist ({@link #requireOfferedBy}),
     * and only for a definition that some Locker may not serve; null before then.
     */
    private volatile Supplier<Locker> locker;

    LockDefinitions(ConfigurableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
        this.parser = new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, beanFactory.getBeanClassLoader()));
    }

    /**
     * @return the definition, or null when the method carries no {@link DistributedLock}
     * @throws IllegalStateException when the annotation is unusable, naming the method and the problem
     */
    LockDefinition find(Method method, Class<?> targetClass) {
        Class<?> type = targetClass != null ? targetClass : method.getDeclaringClass();
        return cache.computeIfAbsent(new MethodClassKey(method, type), key -> {
            if (!interceptableClasses.contains(type)) {
                requireInterceptable(type);
                interceptableClasses.add(type);
            }
            return Optional.ofNullable(parse(method, type));
        }).orElse(NOT_ANNOTATED);
    }

    /**
     * A proxy intercepts only the methods it can override, so a lock on a private, static or final method
     * would never be taken, silently. Spring offers the proxy only some methods of a class, so the whole
     * class is checked the first time any of its methods is.
     */
    private static void requireInterceptable(Class<?> type) {
        ReflectionUtils.doWithMethods(type, method -> {
            int modifiers = method.getModifiers();
            String unreachable = Modifier.isPrivate(modifiers) ? "private" : Modifier.isStatic(modifiers) ? "static" : "final";
            throw invalid(ClassUtils.getShortName(type) + "#" + method.getName(), "is " + unreachable + ": no proxy can intercept it, so its lock "
                    + "would never be taken; make it a public or protected instance method that is not final, and call it through the bean");
        }, method -> (Modifier.isPrivate(method.getModifiers()) || Modifier.isStatic(method.getModifiers()) || Modifier.isFinal(method.getModifiers()))
                && !method.isSynthetic() && AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class));
    }

    private LockDefinition parse(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (annotation == null) {
            return null;
        }
        String where = ClassUtils.getShortName(targetClass) + "#" + specific.getName();
        String name = annotation.name().isBlank() ? where : annotation.name();
        List<String> keyTexts = keyTexts(annotation, where);
        Map<String, Integer> argumentIndexes = LockDefinition.argumentIndexes(specific, parameterNames);
        List<Expression> expressions = new ArrayList<>();
        for (String text : keyTexts) {
            expressions.add(parseKey(text, specific, argumentIndexes, where));
        }
        long waitMillis = waitMillis(annotation, where);
        long leaseMillis = leaseMillis(annotation, keyTexts.get(0), where);
        Duration holdAtLeast = holdAtLeast(annotation, keyTexts.size(), leaseMillis, where);
        LockDefinition.ReturnKind returnKind = returnKind(specific.getReturnType());
        LockDefinition.Fallback fallback = fallback(annotation, specific, targetClass, where);
        if (annotation.onFailure() == LockFailurePolicy.SKIP && specific.getReturnType().isPrimitive() && specific.getReturnType() != void.class) {
            throw invalid(where, "onFailure = SKIP cannot return a value from a method returning " + specific.getReturnType()
                    + "; return a wrapper type or Optional, or use a fallbackMethod");
        }
        specific.trySetAccessible();
        LockDefinition definition = new LockDefinition(specific, targetClass, name, keyTexts, List.copyOf(expressions), waitMillis,
                leaseMillis, holdAtLeast, annotation.onFailure(), fallback, returnKind, argumentIndexes, new BeanFactoryResolver(beanFactory));
        Supplier<Locker> known = locker;
        if (known != null) {
            requireOffered(definition, known);
        }
        return definition;
    }

    /**
     * Checks every definition found so far, and from now on each one found later (a lazy bean's), against
     * what the Locker offers: an annotation the Locker cannot serve would otherwise fail on every call.
     * Called once the singletons exist, because the Locker must not be created while beans are proxied.
     *
     * @throws IllegalStateException naming the method, the attribute and the property that chose the Locker
     */
    void requireOfferedBy(Supplier<Locker> locker) {
        this.locker = locker;
        for (Optional<LockDefinition> definition : cache.values()) {
            definition.ifPresent(found -> requireOffered(found, locker));
        }
    }

    /** Asks for the Locker only for several keys, so an application whose Locker cannot be resolved uniquely starts as before. */
    private static void requireOffered(LockDefinition definition, Supplier<Locker> locker) {
        if (definition.keyTexts.size() > 1 && locker.get() instanceof RedlockLocker) {
            throw invalid(ClassUtils.getShortName(definition.targetClass) + "#" + definition.method.getName(),
                    "locks " + definition.keyTexts.size() + " keys together (keys = " + definition.keyTexts
                            + "), but the Locker is a Redlock one (redis-lock.redlock.nodes), which offers no multi-locks;"
                            + " lock a single key, or drop redis-lock.redlock.nodes");
        }
    }

    private List<String> keyTexts(DistributedLock annotation, String where) {
        boolean hasKey = !annotation.key().isEmpty();
        boolean hasKeys = annotation.keys().length > 0;
        if (hasKey == hasKeys) {
            throw invalid(where, hasKey ? "sets both key and keys; use one of them" : "needs a key (or keys), e.g. key = \"'stock:' + #sku\"");
        }
        List<String> texts = hasKey ? List.of(annotation.key()) : Arrays.asList(annotation.keys());
        List<String> resolved = new ArrayList<>();
        for (String text : texts) {
            String value = resolved(text, hasKey ? "key" : "keys", where);
            if (value == null || value.isBlank()) {
                throw invalid(where, "has an empty key expression" + (text.equals(value) ? "" : " (\"" + text + "\" after placeholders)"));
            }
            resolved.add(value);
        }
        return resolved;
    }

    private Expression parseKey(String text, Method method, Map<String, Integer> argumentIndexes, String where) {
        Expression expression;
        try {
            expression = parser.parseExpression(text);
        } catch (ParseException e) {
            throw invalid(where, "has a key expression that is not valid SpEL: \"" + text + "\" (" + e.getMessage() + ")");
        }
        String[] names = parameterNames.getParameterNames(method);
        Set<String> known = new HashSet<>(List.of("root", "this"));
        known.addAll(argumentIndexes.keySet());
        for (String variable : variables(((SpelExpression) expression).getAST(), new ArrayList<>())) {
            if (!known.contains(variable)) {
                throw invalid(where, "has key expression \"" + text + "\" referring to #" + variable + ", which is not a parameter; its parameters are "
                        + (names == null ? "unnamed (compile with -parameters to use names)" : Arrays.toString(names)) + ", also usable as #p0/#a0...");
            }
        }
        return expression;
    }

    private static List<String> variables(SpelNode node, List<String> found) {
        if (node instanceof VariableReference) {
            found.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            variables(node.getChild(i), found);
        }
        return found;
    }

    private long waitMillis(DistributedLock annotation, String where) {
        if (annotation.waitTimeString().isEmpty()) {
            long wait = annotation.waitTime();
            if (wait == DistributedLock.DEFAULT_WAIT || wait == Locker.WAIT_FOREVER) {
                return wait;
            }
            if (wait < 0) {
                throw invalid(where, "has waitTime " + wait + "; use 0 or more, -1 to wait as long as it takes, or leave it out for redis-lock.default-wait-time");
            }
            return annotation.timeUnit().toMillis(wait);
        }
        if (annotation.waitTime() != DistributedLock.DEFAULT_WAIT) {
            throw invalid(where, "sets both waitTime and waitTimeString; use one of them");
        }
        Duration wait = duration(annotation.waitTimeString(), annotation.timeUnit(), "waitTimeString", where);
        if (wait.isNegative() && !wait.equals(Duration.ofMillis(-1))) {
            throw invalid(where, "has waitTimeString \"" + annotation.waitTimeString() + "\", a negative wait");
        }
        return wait.toMillis();
    }

    private long leaseMillis(DistributedLock annotation, String keyText, String where) {
        Duration lease;
        if (annotation.leaseTimeString().isEmpty()) {
            if (annotation.leaseTime() == Locker.WATCHDOG_LEASE) {
                return Locker.WATCHDOG_LEASE;
            }
            lease = Duration.ofMillis(annotation.timeUnit().toMillis(annotation.leaseTime()));
        } else {
            if (annotation.leaseTime() != Locker.WATCHDOG_LEASE) {
                throw invalid(where, "sets both leaseTime and leaseTimeString; use one of them");
            }
            lease = duration(annotation.leaseTimeString(), annotation.timeUnit(), "leaseTimeString", where);
            if (lease.equals(Duration.ofMillis(-1))) {
                return Locker.WATCHDOG_LEASE;
            }
        }
        if (lease.toMillis() <= 0) {
            throw invalid(where, "has a lease of " + lease + "; use a positive lease, or -1 (the default) for the watchdog");
        }
        try {
            return LockKeys.leaseMillis(keyText, lease.toMillis(), TimeUnit.MILLISECONDS); // the Locker's limits, at startup rather than at every call
        } catch (IllegalArgumentException beyondTheLimit) {
            throw invalid(where, "has a lease of " + lease + " (" + beyondTheLimit.getMessage() + ")");
        }
    }

    private Duration holdAtLeast(DistributedLock annotation, int keys, long leaseMillis, String where) {
        if (annotation.holdAtLeast().isEmpty()) {
            return Duration.ZERO;
        }
        Duration hold = duration(annotation.holdAtLeast(), annotation.timeUnit(), "holdAtLeast", where);
        if (hold.isNegative()) {
            throw invalid(where, "has holdAtLeast \"" + annotation.holdAtLeast() + "\", a negative time; use 0 or more, or leave it out");
        }
        if (keys > 1) {
            throw invalid(where, "sets holdAtLeast with " + keys + " keys; a shortest hold applies to a single key");
        }
        if (leaseMillis != Locker.WATCHDOG_LEASE && leaseMillis < hold.toMillis()) {
            throw invalid(where, "has a lease of " + leaseMillis + " ms, shorter than its holdAtLeast of " + hold.toMillis()
                    + " ms: the lock would end before it; lengthen the lease or leave it out (the watchdog then keeps the lock while the method runs)");
        }
        return hold;
    }

    /** {@code text} with its placeholders resolved; one that cannot be is refused naming the method and attribute, not only the placeholder. */
    private String resolved(String text, String attribute, String where) {
        try {
            return beanFactory.resolveEmbeddedValue(text);
        } catch (IllegalArgumentException unresolvable) {
            throw invalid(where, "has " + attribute + " \"" + text + "\": " + unresolvable.getMessage());
        }
    }

    private Duration duration(String text, TimeUnit unit, String attribute, String where) {
        String value = resolved(text, attribute, where);
        if (value != null && value.trim().equals("-1")) {
            return Duration.ofMillis(-1); // "as long as it takes" / "the watchdog", whatever the unit
        }
        try {
            return DurationStyle.detectAndParse(value == null ? "" : value.trim(), unit.toChronoUnit());
        } catch (IllegalArgumentException e) {
            throw invalid(where, "has " + attribute + " \"" + text + "\"" + (text.equals(value) ? "" : " (\"" + value + "\" after placeholders)")
                    + ", which is neither a duration like 500ms, 2s or PT2S nor a number of " + unit.toChronoUnit().toString().toLowerCase());
        }
    }

    private static LockDefinition.ReturnKind returnKind(Class<?> returnType) {
        if (CompletionStage.class.isAssignableFrom(returnType)) {
            return LockDefinition.ReturnKind.COMPLETION_STAGE;
        }
        if (REACTOR_PRESENT && returnType.getName().equals("reactor.core.publisher.Mono")) {
            return LockDefinition.ReturnKind.MONO;
        }
        if (REACTOR_PRESENT && returnType.getName().equals("reactor.core.publisher.Flux")) {
            return LockDefinition.ReturnKind.FLUX;
        }
        return LockDefinition.ReturnKind.PLAIN;
    }

    private static LockDefinition.Fallback fallback(DistributedLock annotation, Method method, Class<?> targetClass, String where) {
        String name = annotation.fallbackMethod();
        if (name.isEmpty()) {
            return null;
        }
        if (annotation.onFailure() == LockFailurePolicy.SKIP) {
            throw invalid(where, "sets both onFailure = SKIP and fallbackMethod \"" + name + "\"; use one of them");
        }
        Class<?>[] parameters = method.getParameterTypes();
        Class<?>[] withException = Arrays.copyOf(parameters, parameters.length + 1);
        withException[parameters.length] = LockAcquisitionException.class;
        Method candidate = ReflectionUtils.findMethod(targetClass, name, withException);
        boolean takesException = candidate != null;
        if (candidate == null) {
            candidate = ReflectionUtils.findMethod(targetClass, name, parameters);
        }
        if (candidate == null) {
            throw invalid(where, "names fallbackMethod \"" + name + "\", but " + ClassUtils.getShortName(targetClass) + " has no method " + name
                    + Arrays.stream(parameters).map(Class::getSimpleName).toList().toString().replace('[', '(').replace(']', ')')
                    + " (optionally with a trailing LockAcquisitionException parameter)");
        }
        if (!ClassUtils.isAssignable(method.getReturnType(), candidate.getReturnType())) {
            throw invalid(where, "names fallbackMethod \"" + name + "\" returning " + candidate.getReturnType().getSimpleName()
                    + ", which does not fit the return type " + method.getReturnType().getSimpleName());
        }
        ReflectionUtils.makeAccessible(candidate);
        return new LockDefinition.Fallback(candidate, takesException);
    }

    private static IllegalStateException invalid(String where, String problem) {
        return new IllegalStateException("@DistributedLock on " + where + " " + problem);
    }
}
