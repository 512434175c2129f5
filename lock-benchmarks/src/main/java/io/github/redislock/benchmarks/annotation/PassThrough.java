package io.github.redislock.benchmarks.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Marks a method for {@link OverheadApplication}'s do-nothing advisor, which measures the proxy hop alone. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface PassThrough {
}
