package io.github.redislock.annotation;

import java.util.UUID;

import io.github.redislock.LockAcquisitionException;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Locking for methods returning {@code Mono} or {@code Flux}; loaded only when Reactor is present.
 *
 * <p>The lock is taken when the result is subscribed, on Reactor's bounded-elastic scheduler so no
 * event-loop thread ever waits for it, and held by a per-subscription owner token, so the stream may
 * complete on any thread. It is released on completion, error and cancellation.
 */
final class ReactiveLocking {

    private ReactiveLocking() {
    }

    static Object lock(DistributedLockInterceptor.LockedCall call) {
        boolean mono = call.definition.returnKind == LockDefinition.ReturnKind.MONO;
        Mono<String> acquire = Mono.fromCallable(() -> {
            String owner = UUID.randomUUID().toString();
            LockAcquisitionException failure = call.acquire(owner);
            if (failure != null) {
                throw new NotAcquired(failure);
            }
            return owner;
        }).subscribeOn(Schedulers.boundedElastic());
        if (mono) {
            return Mono.usingWhen(acquire, owner -> Mono.from(proceed(call)), owner -> release(call, owner),
                            (owner, error) -> release(call, owner), owner -> release(call, owner))
                    .onErrorResume(NotAcquired.class, notAcquired -> Mono.from(onFailure(call, notAcquired.failure)));
        }
        return Flux.usingWhen(acquire, owner -> proceed(call), owner -> release(call, owner),
                        (owner, error) -> release(call, owner), owner -> release(call, owner))
                .onErrorResume(NotAcquired.class, notAcquired -> onFailure(call, notAcquired.failure));
    }

    private static Publisher<Object> proceed(DistributedLockInterceptor.LockedCall call) {
        try {
            return asPublisher(call.invocation.proceed());
        } catch (Throwable e) {
            return Mono.error(e);
        }
    }

    private static Mono<Void> release(DistributedLockInterceptor.LockedCall call, String owner) {
        return Mono.<Void>fromRunnable(() -> call.release(owner)).subscribeOn(Schedulers.boundedElastic());
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
