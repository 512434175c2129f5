package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A broken {@link DistributedLock} stops the application at startup, naming the method and what is wrong. */
class DistributedLockValidationTest {

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    static Stream<Arguments> brokenAnnotations() {
        return Stream.of(
                Arguments.of(UnparsableKey.class, "UnparsableKey#run has a key expression that is not valid SpEL: \"'stock:' +\""),
                Arguments.of(UnknownParameter.class, "UnknownParameter#run has key expression \"'stock:' + #skuu\" referring to #skuu, which is not a parameter; its parameters are [sku]"),
                Arguments.of(NoKey.class, "NoKey#run needs a key (or keys)"),
                Arguments.of(KeyFromEmptyPlaceholder.class, "KeyFromEmptyPlaceholder#run has an empty key expression (\"${missing.key:}\" after placeholders)"),
                Arguments.of(KeyAndKeys.class, "KeyAndKeys#run sets both key and keys"),
                Arguments.of(SkipWithPrimitive.class, "SkipWithPrimitive#run onFailure = SKIP cannot return a value from a method returning int"),
                Arguments.of(MissingFallback.class, "MissingFallback#run names fallbackMethod \"nowhere\", but DistributedLockValidationTest.MissingFallback has no method nowhere(String)"),
                Arguments.of(FallbackOfWrongType.class, "FallbackOfWrongType#run names fallbackMethod \"other\" returning Integer, which does not fit the return type String"),
                Arguments.of(UnreadableWait.class, "UnreadableWait#run has waitTimeString \"soon\", which is neither a duration"),
                Arguments.of(NegativeWait.class, "NegativeWait#run has waitTime -5"),
                Arguments.of(ZeroLease.class, "ZeroLease#run has a lease of PT0S"),
                Arguments.of(LeaseBeyondAYear.class, "LeaseBeyondAYear#run has a lease of PT9600H"),
                Arguments.of(LeaseStringBeyondAYear.class, "LeaseStringBeyondAYear#run has a lease of PT9600H"),
                Arguments.of(SkipAndFallback.class, "SkipAndFallback#run sets both onFailure = SKIP and fallbackMethod"),
                Arguments.of(LeaseShorterThanHoldAtLeast.class, "LeaseShorterThanHoldAtLeast#run has a lease of 500 ms, shorter than its holdAtLeast of 2000 ms"),
                Arguments.of(HoldAtLeastWithSeveralKeys.class, "HoldAtLeastWithSeveralKeys#run sets holdAtLeast with 2 keys"),
                Arguments.of(NegativeHoldAtLeast.class, "NegativeHoldAtLeast#run has holdAtLeast \"-1s\", a negative time"),
                Arguments.of(UnreadableHoldAtLeast.class, "UnreadableHoldAtLeast#run has holdAtLeast \"${job.hold:a while}\" (\"a while\" after placeholders)"),
                Arguments.of(PrivateMethod.class, "PrivateMethod#run is private: no proxy can intercept it, so its lock would never be taken"),
                Arguments.of(StaticMethod.class, "StaticMethod#run is static: no proxy can intercept it, so its lock would never be taken"),
                Arguments.of(FinalMethod.class, "FinalMethod#run is final: no proxy can intercept it, so its lock would never be taken"),
                Arguments.of(PrivateMethodNextToAPublicOne.class, "PrivateMethodNextToAPublicOne#runAlone is private"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenAnnotations")
    void startupFailsNamingTheMethodAndTheProblem(Class<?> bean, String message) {
        application.withBean(bean).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("@DistributedLock on ")
                .hasMessageContaining(message));
    }

    /** As in a Spring Boot application, whose placeholder configurer refuses a placeholder it cannot resolve. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("unresolvablePlaceholders")
    void anUnresolvablePlaceholderStopsStartupNamingTheMethodAndTheAttribute(Class<?> bean, String message) {
        application.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class)).withBean(bean)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("@DistributedLock on ")
                        .hasMessageContaining(message));
    }

    static Stream<Arguments> unresolvablePlaceholders() {
        return Stream.of(
                Arguments.of(UnresolvableKeyPlaceholder.class, "UnresolvableKeyPlaceholder#run has key \"'report:' + '${app.region}'\""),
                Arguments.of(UnresolvableHoldAtLeast.class, "UnresolvableHoldAtLeast#run has holdAtLeast \"${job.hold}\""));
    }

    static class UnresolvableKeyPlaceholder {
        @DistributedLock(key = "'report:' + '${app.region}'")
        public void run(String sku) {
        }
    }

    static class UnresolvableHoldAtLeast {
        @DistributedLock(key = "'report'", holdAtLeast = "${job.hold}")
        public void run(String sku) {
        }
    }

    static class UnparsableKey {
        @DistributedLock(key = "'stock:' +")
        public void run(String sku) {
        }
    }

    static class UnknownParameter {
        @DistributedLock(key = "'stock:' + #skuu")
        public void run(String sku) {
        }
    }

    static class NoKey {
        @DistributedLock
        public void run(String sku) {
        }
    }

    static class KeyFromEmptyPlaceholder {
        @DistributedLock(key = "${missing.key:}")
        public void run(String sku) {
        }
    }

    static class KeyAndKeys {
        @DistributedLock(key = "#sku", keys = {"#sku"})
        public void run(String sku) {
        }
    }

    static class SkipWithPrimitive {
        @DistributedLock(key = "#sku", onFailure = LockFailurePolicy.SKIP)
        public int run(String sku) {
            return 1;
        }
    }

    static class MissingFallback {
        @DistributedLock(key = "#sku", fallbackMethod = "nowhere")
        public void run(String sku) {
        }
    }

    static class FallbackOfWrongType {
        @DistributedLock(key = "#sku", fallbackMethod = "other")
        public String run(String sku) {
            return sku;
        }

        public Integer other(String sku) {
            return 1;
        }
    }

    static class UnreadableWait {
        @DistributedLock(key = "#sku", waitTimeString = "soon")
        public void run(String sku) {
        }
    }

    static class NegativeWait {
        @DistributedLock(key = "#sku", waitTime = -5)
        public void run(String sku) {
        }
    }

    static class ZeroLease {
        @DistributedLock(key = "#sku", leaseTime = 0)
        public void run(String sku) {
        }
    }

    static class LeaseBeyondAYear {
        @DistributedLock(key = "#sku", leaseTime = 400, timeUnit = TimeUnit.DAYS)
        public void run(String sku) {
        }
    }

    static class LeaseStringBeyondAYear {
        @DistributedLock(key = "#sku", leaseTimeString = "${job.lease:400d}")
        public void run(String sku) {
        }
    }

    static class SkipAndFallback {
        @DistributedLock(key = "#sku", onFailure = LockFailurePolicy.SKIP, fallbackMethod = "other")
        public String run(String sku) {
            return sku;
        }

        public String other(String sku) {
            return sku;
        }
    }

    static class LeaseShorterThanHoldAtLeast {
        @DistributedLock(key = "'job'", leaseTime = 500, holdAtLeast = "2s")
        public void run(String sku) {
        }
    }

    static class HoldAtLeastWithSeveralKeys {
        @DistributedLock(keys = {"'a'", "'b'"}, holdAtLeast = "500ms")
        public void run(String sku) {
        }
    }

    static class NegativeHoldAtLeast {
        @DistributedLock(key = "'job'", holdAtLeast = "-1s")
        public void run(String sku) {
        }
    }

    static class UnreadableHoldAtLeast {
        @DistributedLock(key = "'job'", holdAtLeast = "${job.hold:a while}")
        public void run(String sku) {
        }
    }

    static class PrivateMethod {
        public void call(String sku) {
            run(sku);
        }

        @DistributedLock(key = "'stock:' + #sku")
        private void run(String sku) {
        }
    }

    static class StaticMethod {
        @DistributedLock(key = "'stock:' + #sku")
        public static void run(String sku) {
        }
    }

    static class FinalMethod {
        @DistributedLock(key = "'stock:' + #sku")
        public final void run(String sku) {
        }
    }

    static class PrivateMethodNextToAPublicOne {
        @DistributedLock(key = "'stock:' + #sku")
        public void run(String sku) {
            runAlone(sku);
        }

        @DistributedLock(key = "'stock-alone:' + #sku")
        private void runAlone(String sku) {
        }
    }
}
