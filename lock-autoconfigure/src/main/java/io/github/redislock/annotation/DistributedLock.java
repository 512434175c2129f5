package io.github.redislock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

/**
 * Runs the annotated method under a distributed lock, so one invocation at a time runs it for the
 * same key across every instance of the application.
 *
 * <pre>{@code
 * @DistributedLock(key = "'stock:' + #sku")
 * public Order buy(String sku) { ... }
 * }</pre>
 *
 * <p>The key is a SpEL expression evaluated before the method runs, against its arguments (by name
 * {@code #sku}, or by index {@code #p0}/{@code #a0}), {@code #root.method}, {@code #root.target},
 * beans ({@code @pricing.region()}) and property placeholders ({@code ${app.region}}). Every annotated
 * method is checked at startup: an unparsable expression, an unknown parameter name or an empty key
 * stops the application with a message naming the method.
 *
 * <p>Works on class methods, interface methods, and as a meta-annotation of your own annotation. The
 * lock is released when the method returns or throws, when its {@code CompletionStage} completes, or
 * when its {@code Mono}/{@code Flux} completes, fails or is cancelled; inside a transaction started by
 * a caller, when that transaction completes.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

    /** The value of {@link #waitTime()} that means "use {@code redis-lock.default-wait-time}". */
    long DEFAULT_WAIT = -2;

    /** SpEL expression for the lock key; the Redis key is {@code <redis-lock.key-prefix><value>}. Exactly one of key and keys. */
    String key() default "";

    /**
     * Several SpEL key expressions locked together, all or nothing. They are taken in sorted order, so
     * two methods locking overlapping keys cannot deadlock each other.
     */
    String[] keys() default {};

    /** How long to wait for the lock, in {@link #timeUnit()}: 0 tries once, -1 waits as long as it takes, {@link #DEFAULT_WAIT} uses {@code redis-lock.default-wait-time}. */
    long waitTime() default DEFAULT_WAIT;

    /** {@link #waitTime()} as text that may hold a placeholder, e.g. {@code "${app.lock.wait:2s}"}: a duration ("500ms", "2s", "PT2S") or a number in {@link #timeUnit()}. */
    String waitTimeString() default "";

    /** How long the lock lives unless released first, in {@link #timeUnit()}; -1 lets the watchdog keep it until the method is done. */
    long leaseTime() default -1;

    /** {@link #leaseTime()} as text that may hold a placeholder, like {@link #waitTimeString()}. */
    String leaseTimeString() default "";

    /**
     * The shortest time the lock stays taken, counted from when it was taken: when the method returns
     * sooner, the lock is not freed but kept in Redis, owned by nobody (not by the thread that ran the
     * method either, so its next call skips or waits like any other), renewed by nobody, until then.
     * For a {@code @Scheduled} job on several instances: their triggers fire at slightly different
     * times (clock skew, jitter), and a run shorter than that difference would otherwise be over, and
     * the lock free, when the next instance's trigger fires; that instance would run the job again.
     * Choose it above the worst skew plus trigger jitter and below the job's period (see
     * {@code docs/scheduling.md}). A method that runs longer releases the lock when it returns.
     *
     * <p>A duration ("500ms", "PT30S") or a number in {@link #timeUnit()}; placeholders allowed. Empty
     * (the default) releases when the method returns. Only with a single {@link #key()}; a
     * {@link #leaseTime()} shorter than it is refused at startup.
     */
    String holdAtLeast() default "";

    /** The unit of {@link #waitTime()} and {@link #leaseTime()}, and of plain numbers in their string forms. */
    TimeUnit timeUnit() default TimeUnit.MILLISECONDS;

    /** What happens when the lock stays held by another owner for the whole wait. */
    LockFailurePolicy onFailure() default LockFailurePolicy.THROW;

    /**
     * A method of the same bean that runs instead when the lock cannot be taken: same parameters,
     * optionally followed by a {@code LockAcquisitionException} parameter, and a compatible return type.
     */
    String fallbackMethod() default "";

    /** A low-cardinality name for metrics and logs; defaults to {@code Class#method}. Never put the key here. */
    String name() default "";
}
