package io.github.redislock.annotation;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockHandle;
import io.github.redislock.ReactiveLocker;
import io.github.redislock.core.RedisReactiveLocker;

import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Locking for methods returning {@code Mono} or {@code Flux}; loaded only when Reactor is present.
 *
 * <p>The lock is taken when the result is subscribed and held by a per-subscription owner, so the
 * stream may complete on any thread. It is released on completion, error and cancellation, also when
 * the subscription is cancelled while the lock is still being taken. Each subscription is one call: it
 * takes the lock again and runs the advice inside this one (a transaction, say) again.
 *
 * <p>With an {@link AsyncLocker} (the auto-configured one next to a RedisLocker) and a single key, a
 * waiting subscription holds no thread: it is a {@link LockHandle}'s acquisition, whose cancellation
 * withdraws its queue place or gives back a grant that was on its way. Otherwise (several keys, a
 * Redlock) the lock is taken with the blocking Locker on Reactor's bounded-elastic scheduler, so no
 * event-loop thread waits for it; a cancelled subscription's acquisition is then not interrupted (an
 * interrupt mid-call would leave a lock taken in Redis that nobody knows of) but finishes its wait, at
 * most the annotation's wait time, and gives back what it got.
 */
final class ReactiveLocking {

    private static final Log log = LogFactory.getLog(ReactiveLocking.class);

    private ReactiveLocking() {
    }

    /** @param asyncLocker null when there is none */
    static Object lock(DistributedLockInterceptor.LockedCall call, AsyncLocker asyncLocker) {
        boolean mono = call.definition.returnKind == LockDefinition.ReturnKind.MONO;
        MethodInvocation unproceeded = unproceeded(call.invocation);
        if (asyncLocker != null && call.keys.size() == 1) {
            return lockWithoutThread(call, asyncLocker, mono, unproceeded);
        }
        if (mono) {
            return Mono.defer(() -> {
                LockedSubscription locked = new LockedSubscription(call);
                return Mono.usingWhen(locked.acquired(), owner -> Mono.from(proceed(unproceeded)), owner -> locked.release(),
                        (owner, error) -> releaseAfter(locked.release(), error), owner -> locked.release()).doOnCancel(locked::releaseOnceTaken);
            }).onErrorResume(NotAcquired.class, notAcquired -> Mono.from(onFailure(call, notAcquired.failure)));
        }
        return Flux.defer(() -> {
            LockedSubscription locked = new LockedSubscription(call);
            return Flux.usingWhen(locked.acquired(), owner -> proceed(unproceeded), owner -> locked.release(),
                    (owner, error) -> releaseAfter(locked.release(), error), owner -> locked.release()).doOnCancel(locked::releaseOnceTaken);
        }).onErrorResume(NotAcquired.class, notAcquired -> onFailure(call, notAcquired.failure));
    }

    private static Object lockWithoutThread(DistributedLockInterceptor.LockedCall call, AsyncLocker locker, boolean mono,
                                            MethodInvocation unproceeded) {
        ReactiveLocker reactive = new RedisReactiveLocker(locker);
        Mono<LockHandle> acquired = StageLocking.acquire(call, reactive::acquire).onErrorMap(LockAcquisitionException.class, NotAcquired::new);
        // A release is never cancelled half-way: Redis would still run it, and nobody learn how it went.
        Function<LockHandle, Mono<Void>> release = handle -> Mono.fromFuture(() -> StageLocking.release(call, locker, handle).toCompletableFuture(), true);
        BiFunction<LockHandle, Throwable, Mono<Void>> releaseAfterError = (handle, error) -> releaseAfter(release.apply(handle), error);
        if (mono) {
            return Mono.usingWhen(acquired, handle -> Mono.from(proceed(unproceeded)), release, releaseAfterError, release)
                    .onErrorResume(NotAcquired.class, notAcquired -> Mono.from(onFailure(call, notAcquired.failure)));
        }
        return Flux.usingWhen(acquired, handle -> proceed(unproceeded), release, releaseAfterError, release)
                .onErrorResume(NotAcquired.class, notAcquired -> onFailure(call, notAcquired.failure));
    }

    /**
     * The release after the method's error: a failed release (a lock lost meanwhile) is added to that error
     * as suppressed, as on the blocking path; left to fail, Reactor would replace the method's error by its
     * own "Async resource cleanup failed after onError".
     */
    private static Mono<Void> releaseAfter(Mono<Void> release, Throwable error) {
        return release.onErrorResume(releaseFailure -> {
            if (releaseFailure != error) {
                error.addSuppressed(releaseFailure);
            }
            return Mono.empty();
        });
    }

    /**
     * A copy of the invocation that stays where this advice stands in the chain. An invocation moves on
     * along its chain as it proceeds, so proceeding with the original a second time (a re-subscription)
     * would skip every advice after this one and call the method directly.
     */
    private static MethodInvocation unproceeded(MethodInvocation invocation) {
        return invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
    }

    private static Publisher<Object> proceed(MethodInvocation unproceeded) {
        try {
            MethodInvocation invocation = unproceeded instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : unproceeded;
            return asPublisher(invocation.proceed());
        } catch (Throwable e) {
            return Mono.error(e);
        }
    }

    /**
     * One subscription's lock. Its acquisition starts with the subscription and runs to its end even
     * when the subscription is cancelled meanwhile (Reactor's {@code usingWhen} would then drop the
     * owner it produces late, and with it the only way to release the lock); the release runs once,
     * whoever asks for it first: the end of the stream, or the cancellation.
     */
    private static final class LockedSubscription {
        private final DistributedLockInterceptor.LockedCall call;
        private final String owner = UUID.randomUUID().toString();
        /** Completes with null once the lock is held, with the failure when it was not acquired. */
        private final CompletableFuture<Outcome> taking = new CompletableFuture<>();
        private final AtomicBoolean released = new AtomicBoolean();

        LockedSubscription(DistributedLockInterceptor.LockedCall call) {
            this.call = call;
            Schedulers.boundedElastic().schedule(() -> { // never disposed: a cancel must not interrupt a Redis call
                try {
                    taking.complete(new Outcome(call.acquire(owner)));
                } catch (Throwable e) {
                    taking.completeExceptionally(e);
                }
            });
        }

        Mono<String> acquired() {
            return Mono.fromFuture(taking, true)
                    .flatMap(outcome -> outcome.failure == null ? Mono.just(owner) : Mono.error(new NotAcquired(outcome.failure)));
        }

        Mono<Void> release() {
            if (!released.compareAndSet(false, true)) {
                return Mono.empty();
            }
            return Mono.<Void>fromRunnable(() -> call.release(owner)).subscribeOn(Schedulers.boundedElastic());
        }

        /** On cancellation: gives the lock back as soon as the acquisition got it, unless the stream's end did already. */
        void releaseOnceTaken() {
            taking.thenAccept(outcome -> {
                if (outcome.failure == null) {
                    release().subscribe(null, error -> log.warn("Could not release lock " + call.keys + " of cancelled subscription "
                            + owner + "; it frees when its lease ends", error));
                }
            });
        }
    }

    /** @param failure null when the lock is held */
    private record Outcome(LockAcquisitionException failure) {
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> asPublisher(Object result) {
        return result == null ? Mono.empty() : (Publisher<Object>) result;
    }

    private static Publisher<Object> onFailure(DistributedLockInterceptor.LockedCall call, LockAcquisitionException failure) {
        if (call.definition.fallback != null) {
            try {
                return asPublisher(call.invokeFallback(failure));
            } catch (Throwable e) {
                return Mono.error(e);
            }
        }
        return call.definition.onFailure == LockFailurePolicy.SKIP ? Mono.empty() : Mono.error(failure);
    }

    /** Carries an acquisition failure past the body, so a LockAcquisitionException thrown by the method itself is not mistaken for ours. */
    private static final class NotAcquired extends RuntimeException {
        final LockAcquisitionException failure;

        NotAcquired(LockAcquisitionException failure) {
            super(failure.getMessage(), null, false, false);
            this.failure = failure;
        }
    }
}
