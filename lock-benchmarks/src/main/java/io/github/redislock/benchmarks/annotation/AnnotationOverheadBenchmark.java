package io.github.redislock.benchmarks.annotation;

import java.util.List;
import java.util.concurrent.TimeUnit;

import com.baomidou.lock.LockInfo;
import com.baomidou.lock.LockTemplate;

import io.github.redislock.Locker;
import io.github.redislock.annotation.AdviceWorkProbe;
import io.github.redislock.annotation.DistributedLockAdvisor;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario 4 as JMH benchmarks, one thread, time per call. JMH runs them in the benchmark's own JVM
 * (no fork), on the application {@link #application} the scenario started; a fork would have to
 * start its own Redis and context.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AnnotationOverheadBenchmark {

    /** Set by the scenario before JMH runs and cleared after. */
    static volatile ConfigurableApplicationContext application;

    /** Not final and not constant, so that the JIT cannot fold the key or the body away. */
    private String sku = "sku-1";
    private int quantity = 3;

    private StockService service;
    private Locker locker;
    private LockTemplate lock4j;
    private AdviceWorkProbe adviceProbe;

    public static void use(ConfigurableApplicationContext context) {
        application = context;
    }

    @Setup(Level.Trial)
    public void lookUpBeans() throws NoSuchMethodException {
        ConfigurableApplicationContext context = application;
        if (context == null) {
            throw new IllegalStateException("No application: AnnotationOverheadBenchmark runs in-process from the benchmark runner, which starts it");
        }
        service = context.getBean(StockService.class);
        locker = context.getBean(Locker.class);
        lock4j = context.getBean(LockTemplate.class);
        adviceProbe = new AdviceWorkProbe(context.getBean(DistributedLockAdvisor.class), service,
                StockService.class.getMethod("reserve", String.class, int.class));
    }

    /** The body with {@code Locker.lock} and {@code unlock} written around it by hand. */
    @Benchmark
    public int redisLockByHand() {
        String key = StockService.lockKey(sku);
        locker.lock(key);
        try {
            return StockService.body(sku, quantity);
        } finally {
            locker.unlock(key);
        }
    }

    /** The same body as a {@code @DistributedLock} method called through the application's proxy. */
    @Benchmark
    public int redisLockAnnotated() {
        return service.reserve(sku, quantity);
    }

    /** The body with lock4j's {@code LockTemplate} calls written around it by hand, as its annotation would make them. */
    @Benchmark
    public int lock4jByHand() {
        LockInfo lock = lock4j.lock(StockService.lock4jKey(sku), StockService.LOCK4J_EXPIRE_MILLIS, -1);
        if (lock == null) {
            throw new IllegalStateException("lock4j gave up on an uncontended key");
        }
        try {
            return StockService.body(sku, quantity);
        } finally {
            lock4j.releaseLock(lock);
        }
    }

    /** The same body as a {@code @Lock4j} method called through the application's proxy. */
    @Benchmark
    public int lock4jAnnotated() {
        return service.reserveWithLock4j(sku, quantity);
    }

    /** What the {@code @DistributedLock} interceptor does per call besides the {@code Locker} calls: no Redis. */
    @Benchmark
    public List<Object> adviceWork() {
        return adviceProbe.adviseWithoutLocking(sku, quantity);
    }

    /** The same proxy with a do-nothing interceptor around the body: the AOP hop, no Redis. */
    @Benchmark
    public int proxyHop() {
        return service.reservePassThrough(sku, quantity);
    }
}
