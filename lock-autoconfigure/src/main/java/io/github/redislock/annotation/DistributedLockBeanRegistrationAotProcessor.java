package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What a bean with {@link DistributedLock} methods needs reflectively at run time, registered for a
 * native image when the application is processed ahead of time: the annotated methods themselves
 * (their parameter names feed the key expressions, and a JDK proxy calls an interface method
 * reflectively), the fallback methods the annotations name (called through {@link Method#invoke}), and
 * the public getters of {@link LockKeyExpressionRoot}, which SpEL reads reflectively for {@code #root}.
 * Spring's own AOT registers the proxies themselves (and, on Spring Framework 7, a class-proxied bean's
 * methods too); these hints do not rely on it.
 * Registered in {@code META-INF/spring/aot.factories}.
 */
class DistributedLockBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
        Set<Method> annotated = annotatedMethods(beanClass);
        if (annotated.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            reflection.registerType(LockKeyExpressionRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
            for (Method method : annotated) {
                reflection.registerMethod(method, ExecutableMode.INVOKE);
                String fallback = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class).fallbackMethod();
                if (!fallback.isEmpty()) {
                    // Found by name and parameter types in the class hierarchy (see LockDefinitions): every candidate.
                    ReflectionUtils.doWithMethods(beanClass, candidate -> reflection.registerMethod(candidate, ExecutableMode.INVOKE),
                            candidate -> candidate.getName().equals(fallback));
                }
            }
        };
    }

    /** The bean class's methods and its interfaces' that carry the annotation, directly or as a meta-annotation. */
    private static Set<Method> annotatedMethods(Class<?> beanClass) {
        Set<Method> found = new LinkedHashSet<>();
        if (!AnnotationUtils.isCandidateClass(beanClass, DistributedLock.class)) {
            return found;
        }
        ReflectionUtils.MethodCallback collect = method -> {
            if (AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class)) {
                found.add(method);
            }
        };
        ReflectionUtils.doWithMethods(beanClass, collect, ReflectionUtils.USER_DECLARED_METHODS);
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(beanClass)) {
            ReflectionUtils.doWithMethods(type, collect, ReflectionUtils.USER_DECLARED_METHODS);
        }
        return found;
    }
}
