package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAsyncAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockRedlockAutoConfiguration;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link DistributedLock} on every kind of lock it offers (one key, several keys, a Redlock locker's key),
 * on Lettuce and Jedis, for every return shape (a value, {@code void}, a future, a {@code Mono}, a
 * {@code Flux}): the lock is taken when the work starts, held while it runs, and gone from Redis when the
 * call ends, whether the work returns, fails, throws at once or (for a future or a stream) is cancelled; a method
 * re-entered through its proxy holds its keys until the outer call ends; and a key that comes out blank
 * is refused naming the method on every shape, without running it.
 */
class AnnotationOnEveryKindTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    static final String HOLD_AT_LEAST = "1500ms";
    /** The work methods' wait: long enough for any test, but short where a test keeps a key busy. */
    static final String WAIT = "${every-kind.wait:5s}";

    /** An application: the client or the locker it runs on. */
    enum Setup {
        LETTUCE, JEDIS, REDLOCK;

        ApplicationContextRunner application() {
            ApplicationContextRunner application = new ApplicationContextRunner()
                    .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, RedisLockRedlockAutoConfiguration.class,
                            RedisLockAutoConfiguration.class, RedisLockAsyncAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
                    .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                            "redis-lock.watchdog-timeout=2s")
                    .withBean(SingleKey.class).withBean(Kept.class);
            return switch (this) {
                case LETTUCE -> application.withBean(SeveralKeys.class);
                case JEDIS -> application.withBean(SeveralKeys.class).withPropertyValues("spring.data.redis.client-type=jedis");
                case REDLOCK -> application.withPropertyValues("redis-lock.redlock.node-timeout=1s", "redis-lock.redlock.nodes=" + masters.urls());
            };
        }

        /** The kinds of lock the annotation offers on this setup: Redlock has no multi-locks. */
        List<Class<? extends Work>> kinds() {
            return this == REDLOCK ? List.of(SingleKey.class) : List.of(SingleKey.class, SeveralKeys.class);
        }

        boolean held(String redisKey) {
            return this == REDLOCK ? masters.copiesOf(redisKey) >= 2 : Long.valueOf(1).equals(TestRedis.shared().command("EXISTS", redisKey));
        }

        boolean gone(String redisKey) {
            return this == REDLOCK ? masters.copiesOf(redisKey) == 0 : Long.valueOf(0).equals(TestRedis.shared().command("EXISTS", redisKey));
        }
    }

    /** How the work of a call ends. */
    enum Exit {
        RETURNS, FAILS, THROWS_AT_ONCE, CANCELLED
    }

    /** A return shape: how to call it, and how its caller waits for the end of the call (or cancels it). */
    enum Shape {
        VALUE((work, gate) -> Call.blocking(() -> work.value(gate.key, gate))),
        VOID((work, gate) -> Call.blocking(() -> {
            work.nothing(gate.key, gate);
            return "done";
        })),
        FUTURE((work, gate) -> {
            try {
                return Call.future(work.future(gate.key, gate));
            } catch (RuntimeException thrown) { // a body thrown at once, with the lock taken on the calling thread
                return Call.future(CompletableFuture.failedFuture(thrown));
            }
        }),
        MONO((work, gate) -> Call.subscribed(work.mono(gate.key, gate))),
        FLUX((work, gate) -> Call.subscribed(work.flux(gate.key, gate).last()));

        final BiFunction<Work, Gate, Call> start;

        Shape(BiFunction<Work, Gate, Call> start) {
            this.start = start;
        }

        /** Calls the kept method of this shape and waits for its result: "ran", or null when it was skipped. */
        final BiFunction<Kept, String, Object> keptCall = (kept, key) -> switch (this) {
            case VALUE -> kept.value(key);
            case VOID -> {
                int before = kept.runs().get();
                kept.nothing(key);
                yield kept.runs().get() > before ? "ran" : null;
            }
            case FUTURE -> kept.future(key).join();
            case MONO -> kept.mono(key).block(Duration.ofSeconds(10));
            case FLUX -> kept.flux(key).blockLast(Duration.ofSeconds(10));
        };

        boolean cancellable() {
            return this == FUTURE || this == MONO || this == FLUX;
        }

        String methodName() {
            return this == VOID ? "nothing" : name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static Stream<Arguments> everyShapeOnEverySetup() {
        return Stream.of(Setup.values()).flatMap(setup -> Stream.of(Shape.values()).map(shape -> Arguments.of(setup, shape)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyShapeOnEverySetup")
    void theLockIsHeldExactlyWhileTheWorkRunsAndGoneOnEveryExit(Setup setup, Shape shape) {
        setup.application().run(context -> {
            assertThat(context).hasNotFailed();
            for (Class<? extends Work> kind : setup.kinds()) {
                Work work = context.getBean(kind);
                for (Exit exit : Exit.values()) {
                    if (exit == Exit.CANCELLED && !shape.cancellable()) {
                        continue;
                    }
                    String what = kind.getSimpleName() + " " + shape + " that " + exit;
                    Gate gate = new Gate();
                    gate.throwsAtOnce = exit == Exit.THROWS_AT_ONCE;
                    List<String> redisKeys = work.redisKeys(gate.key);
                    Call call = shape.start.apply(work, gate);
                    assertThat(gate.entered.await(10, TimeUnit.SECONDS)).as(what + ": the work started").isTrue();
                    for (String redisKey : gate.throwsAtOnce ? List.<String>of() : redisKeys) {
                        assertThat(setup.held(redisKey)).as(what + ": " + redisKey + " held while the work runs").isTrue();
                    }
                    switch (exit) {
                        case THROWS_AT_ONCE -> assertThat(call.outcome()).as(what + ": the caller's failure").isInstanceOf(IllegalStateException.class)
                                .hasFieldOrPropertyWithValue("message", "thrown at once");
                        case RETURNS -> {
                            gate.finish.complete("done");
                            assertThat(call.outcome()).as(what + ": the caller's result").isEqualTo("done");
                        }
                        case FAILS -> {
                            gate.finish.completeExceptionally(new IllegalStateException("work failed"));
                            assertThat(call.outcome()).as(what + ": the caller's failure").isInstanceOf(IllegalStateException.class);
                        }
                        case CANCELLED -> {
                            call.cancel();
                            if (shape == Shape.FUTURE) { // the body's stage runs on: its lock is held until that completes
                                for (String redisKey : redisKeys) {
                                    assertThat(setup.held(redisKey)).as(what + ": " + redisKey + " held while the body's stage runs").isTrue();
                                }
                                gate.finish.complete("done");
                            }
                            await(what + ": released after the cancel").atMost(Duration.ofSeconds(5))
                                    .until(() -> redisKeys.stream().allMatch(setup::gone));
                        }
                    }
                    for (String redisKey : redisKeys) {
                        assertThat(setup.gone(redisKey)).as(what + ": " + redisKey + " gone when the call ended").isTrue();
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Setup.class)
    void aMethodReEnteredThroughItsProxyHoldsItsKeysUntilTheOuterCallEnds(Setup setup) {
        setup.application().run(context -> {
            for (Class<? extends Work> outerKind : setup.kinds()) {
                for (Class<? extends Work> innerKind : setup.kinds()) { // one key inside several, several around one
                    String what = innerKind.getSimpleName() + " inside " + outerKind.getSimpleName();
                    Work outerWork = context.getBean(outerKind);
                    Work innerWork = context.getBean(innerKind);
                    Gate outer = new Gate();
                    List<String> redisKeys = outerWork.redisKeys(outer.key);
                    Gate inner = new Gate(outer.key);
                    inner.finish.complete("inner");
                    outer.beforeFinishing = () -> {
                        assertThat(innerWork.value(outer.key, inner)).as(what).isEqualTo("inner");
                        for (String redisKey : redisKeys) {
                            assertThat(setup.held(redisKey)).as(what + ": " + redisKey + " still held after the inner call").isTrue();
                        }
                    };
                    outer.finish.complete("outer");

                    assertThat(outerWork.value(outer.key, outer)).as(what).isEqualTo("outer");

                    for (String redisKey : innerWork.redisKeys(outer.key)) {
                        assertThat(setup.gone(redisKey)).as(what + ": " + redisKey + " gone after the outer call").isTrue();
                    }
                    for (String redisKey : redisKeys) {
                        assertThat(setup.gone(redisKey)).as(what + ": " + redisKey + " gone after the outer call").isTrue();
                    }
                }
            }
        });
    }

    /**
     * A key held by another owner for the whole wait: the caller gets a LockAcquisitionException naming it (thrown,
     * or failing the future or stream), the body never runs, and of several keys none that was free stays taken.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyShapeOnEverySetup")
    void aKeyBusyForTheWholeWaitFailsTheCallNamingItWithoutRunningTheBodyOrKeepingTheOtherKeys(Setup setup, Shape shape) {
        setup.application().withPropertyValues("every-kind.wait=200ms").run(context -> {
            Locker other = context.getBean(Locker.class); // held by the test's thread: another owner than any call's
            for (Class<? extends Work> kind : setup.kinds()) {
                Work work = context.getBean(kind);
                Gate gate = new Gate();
                gate.finish.complete("done");
                List<String> redisKeys = work.redisKeys(gate.key);
                String busy = redisKeys.get(redisKeys.size() - 1).substring("lock:".length()); // the last of several: the first is taken, then given back
                int runsBefore = work.runs().get();
                other.lock(busy);
                try {
                    Object outcome = shape.start.apply(work, gate).outcome();

                    assertThat(outcome).as(kind.getSimpleName() + " " + shape).isInstanceOf(LockAcquisitionException.class);
                    assertThat(((Throwable) outcome).getMessage()).contains(busy);
                    assertThat(work.runs().get()).as("runs of " + kind.getSimpleName() + " " + shape).isEqualTo(runsBefore);
                    for (String redisKey : redisKeys.subList(0, redisKeys.size() - 1)) {
                        assertThat(setup.gone(redisKey)).as(kind.getSimpleName() + " " + shape + ": the free key " + redisKey + " not kept").isTrue();
                    }
                } finally {
                    other.unlock(busy);
                }
            }
        });
    }

    static Stream<Arguments> everyShapeOnOneRedis() {
        return everyShapeOnEverySetup().filter(arguments -> arguments.get()[0] != Setup.REDLOCK);
    }

    /**
     * Of several keys, the failure names the one held by another owner for the whole wait, and that owner, in the same
     * words whoever took the keys: the calling thread's multi-lock (a value, void) or an owner token (a future, a stream).
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyShapeOnOneRedis")
    void theFailureOfSeveralKeysNamesTheBusyKeyAndItsHolderOnEveryShape(Setup setup, Shape shape) {
        setup.application().withPropertyValues("every-kind.wait=200ms").run(context -> {
            RedisLocker other = context.getBean(RedisLocker.class);
            Gate gate = new Gate();
            gate.finish.complete("done");
            other.lock(gate.key); // the first of the keys, held by the test's thread: another owner than any call's
            try {
                Object outcome = shape.start.apply(context.getBean(SeveralKeys.class), gate).outcome();

                assertThat(outcome).isInstanceOf(LockAcquisitionException.class);
                assertThat(((LockAcquisitionException) outcome).getKey()).isEqualTo(gate.key);
                assertThat(((Throwable) outcome).getMessage())
                        .isEqualTo("Could not acquire lock '" + gate.key + "' within PT0.2S: it is held by owner " + other.currentOwner());
            } finally {
                other.unlock(gate.key);
            }
        });
    }

    /** holdAtLeast (one key only): a method that returns sooner leaves its lock kept, owned by nobody, until then. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyShapeOnEverySetup")
    void aMethodReturningBeforeItsHoldAtLeastLeavesItsLockKeptUntilThen(Setup setup, Shape shape) {
        setup.application().run(context -> {
            Kept kept = context.getBean(Kept.class);
            String key = "every-kind-kept-" + UUID.randomUUID();
            Object first = shape.keptCall.apply(kept, key);
            assertThat(first).as("the first call ran").isEqualTo("ran");
            assertThat(setup.held("lock:" + key)).as("kept after the method returned").isTrue();

            Object second = shape.keptCall.apply(kept, key);

            assertThat(second).as("the second call, while the lock is kept").isNull();
            await().atMost(Duration.ofSeconds(5)).until(() -> setup.gone("lock:" + key));
        });
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyShapeOnEverySetup")
    void aKeyThatComesOutNullOrBlankIsRefusedNamingTheMethodWithoutRunningIt(Setup setup, Shape shape) {
        setup.application().run(context -> {
            for (Class<? extends Work> kind : setup.kinds()) {
                for (String badKey : new String[] {null, "", " "}) {
                    Work work = context.getBean(kind);
                    Gate gate = new Gate(badKey);
                    gate.finish.complete("done");
                    int runsBefore = work.runs().get();

                    Object refused; // thrown by the proxy, or the call's failure
                    try {
                        refused = shape.start.apply(work, gate).outcome();
                    } catch (RuntimeException e) {
                        refused = e;
                    }

                    assertThat(refused).as(kind.getSimpleName() + " " + shape + " key '" + badKey + "'").isInstanceOf(IllegalArgumentException.class);
                    assertThat(((Throwable) refused).getMessage()).contains("@DistributedLock key").contains(kind.getSimpleName() + "#" + shape.methodName());
                    assertThat(work.runs().get()).as("runs of " + kind.getSimpleName() + " " + shape).isEqualTo(runsBefore);
                }
            }
        });
    }

    /** One call of a work method, as its caller sees it. */
    interface Call {
        /** The result, or the failure, of the call: waits for it. */
        Object outcome();

        void cancel();

        static Call blocking(java.util.concurrent.Callable<String> call) {
            return future(CompletableFuture.supplyAsync(() -> {
                try {
                    return call.call();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            }));
        }

        static Call future(CompletableFuture<String> future) {
            return new Call() {
                @Override
                public Object outcome() {
                    try {
                        return future.get(10, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        return e.getCause();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }

                @Override
                public void cancel() {
                    future.cancel(false);
                }
            };
        }

        static Call subscribed(Mono<String> mono) {
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Disposable subscription = mono.subscribe(outcome::complete, outcome::completeExceptionally, () -> outcome.complete(null));
            return new Call() {
                @Override
                public Object outcome() {
                    return future(outcome).outcome();
                }

                @Override
                public void cancel() {
                    subscription.dispose();
                }
            };
        }
    }

    /** What a call's work does: tells it started, then ends as the test decides. */
    static final class Gate {
        final String key;
        final CountDownLatch entered = new CountDownLatch(1);
        final CompletableFuture<String> finish = new CompletableFuture<>();
        Runnable beforeFinishing = () -> { };
        /** Whether the method throws as soon as it started, instead of returning or failing its result later. */
        boolean throwsAtOnce;

        Gate() {
            this("every-kind-" + UUID.randomUUID());
        }

        Gate(String key) {
            this.key = key;
        }

        String block() {
            startWork();
            beforeFinishing.run();
            try {
                return finish.join();
            } catch (CompletionException e) {
                throw (RuntimeException) e.getCause();
            }
        }

        private void startWork() {
            entered.countDown();
            if (throwsAtOnce) {
                throw new IllegalStateException("thrown at once");
            }
        }

        CompletableFuture<String> stage() {
            startWork();
            return finish.thenApply(value -> value); // the body's own stage: a caller's cancel does not reach the test's
        }
    }

    /** The same methods on each kind of lock; the kinds differ only in their annotations. */
    abstract static class Work {
        final AtomicInteger runs = new AtomicInteger();

        abstract List<String> redisKeys(String key);

        /** Read through the proxy: a class proxy's own fields are not the target's. */
        public AtomicInteger runs() {
            return runs;
        }

        public abstract String value(String key, Gate gate);

        public abstract void nothing(String key, Gate gate);

        public abstract CompletableFuture<String> future(String key, Gate gate);

        public abstract Mono<String> mono(String key, Gate gate);

        public abstract Flux<String> flux(String key, Gate gate);
    }

    static class SingleKey extends Work {
        @Override
        List<String> redisKeys(String key) {
            return List.of("lock:" + key);
        }

        @Override
        @DistributedLock(key = "#p0", waitTimeString = WAIT)
        public String value(String key, Gate gate) {
            runs.incrementAndGet();
            return gate.block();
        }

        @Override
        @DistributedLock(key = "#p0", waitTimeString = WAIT)
        public void nothing(String key, Gate gate) {
            runs.incrementAndGet();
            gate.block();
        }

        @Override
        @DistributedLock(key = "#p0", waitTimeString = WAIT)
        public CompletableFuture<String> future(String key, Gate gate) {
            runs.incrementAndGet();
            return gate.stage();
        }

        @Override
        @DistributedLock(key = "#p0", waitTimeString = WAIT)
        public Mono<String> mono(String key, Gate gate) {
            runs.incrementAndGet();
            return Mono.fromFuture(gate.stage());
        }

        @Override
        @DistributedLock(key = "#p0", waitTimeString = WAIT)
        public Flux<String> flux(String key, Gate gate) {
            runs.incrementAndGet();
            return Flux.from(Mono.fromFuture(gate.stage()));
        }
    }

    static class SeveralKeys extends Work {
        @Override
        List<String> redisKeys(String key) {
            return List.of("lock:" + key, "lock:" + key + ":b");
        }

        @Override
        @DistributedLock(keys = {"#p0", "#p0 + ':b'"}, waitTimeString = WAIT)
        public String value(String key, Gate gate) {
            runs.incrementAndGet();
            return gate.block();
        }

        @Override
        @DistributedLock(keys = {"#p0", "#p0 + ':b'"}, waitTimeString = WAIT)
        public void nothing(String key, Gate gate) {
            runs.incrementAndGet();
            gate.block();
        }

        @Override
        @DistributedLock(keys = {"#p0", "#p0 + ':b'"}, waitTimeString = WAIT)
        public CompletableFuture<String> future(String key, Gate gate) {
            runs.incrementAndGet();
            return gate.stage();
        }

        @Override
        @DistributedLock(keys = {"#p0", "#p0 + ':b'"}, waitTimeString = WAIT)
        public Mono<String> mono(String key, Gate gate) {
            runs.incrementAndGet();
            return Mono.fromFuture(gate.stage());
        }

        @Override
        @DistributedLock(keys = {"#p0", "#p0 + ':b'"}, waitTimeString = WAIT)
        public Flux<String> flux(String key, Gate gate) {
            runs.incrementAndGet();
            return Flux.from(Mono.fromFuture(gate.stage()));
        }
    }

    /** One key kept for {@link #HOLD_AT_LEAST} after it was taken; a call finding it kept is skipped. */
    static class Kept {
        final AtomicInteger runs = new AtomicInteger();

        public AtomicInteger runs() {
            return runs;
        }

        @DistributedLock(key = "#p0", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = HOLD_AT_LEAST)
        public String value(String key) {
            runs.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "#p0", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = HOLD_AT_LEAST)
        public void nothing(String key) {
            runs.incrementAndGet();
        }

        @DistributedLock(key = "#p0", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = HOLD_AT_LEAST)
        public CompletableFuture<String> future(String key) {
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "#p0", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = HOLD_AT_LEAST)
        public Mono<String> mono(String key) {
            return Mono.just("ran");
        }

        @DistributedLock(key = "#p0", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = HOLD_AT_LEAST)
        public Flux<String> flux(String key) {
            return Flux.just("ran");
        }
    }
}
