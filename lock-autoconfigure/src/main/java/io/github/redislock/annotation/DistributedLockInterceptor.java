package io.github.redislock.annotation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockNameScope;
import io.github.redislock.LockLostException;
import io.github.redislock.Locker;
import io.github.redislock.RedisMultiLock;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/** Takes the lock around a {@link DistributedLock} method and releases it when the work is really done. */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager", DistributedLockInterceptor.class.getClassLoader());

    private final LockDefinitions definitions;
    private final Supplier<Locker> locker;
    /** The locker that waits without a thread, or null when the application has none (a Redlock). */
    private final Supplier<AsyncLocker> asyncLocker;
    private final Supplier<Duration> defaultWait;
    private final boolean releaseAfterTransaction;

    DistributedLockInterceptor(LockDefinitions definitions, Supplier<Locker> locker, Supplier<AsyncLocker> asyncLocker,
                               Supplier<Duration> defaultWait, boolean releaseAfterTransaction) {
        this.definitions = definitions;
        this.locker = locker;
        this.asyncLocker = asyncLocker;
        this.defaultWait = defaultWait;
        this.releaseAfterTransaction = releaseAfterTransaction;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        LockedCall call = prepare(invocation);
        if (call == null) {
            return invocation.proceed();
        }
        return switch (call.definition.returnKind) {
            case PLAIN -> call.runOnThisThread();
            case COMPLETION_STAGE -> asyncLocker.get() != null && StageLocking.applies(call)
                    ? StageLocking.lock(call, asyncLocker.get()) : call.runUntilStageCompletes();
            case MONO, FLUX -> ReactiveLocking.lock(call, asyncLocker.get());
        };
    }

    /**
     * The per-call work before any lock is taken: the method's definition, its keys for these
     * arguments, its wait. Apart from the {@link #locker()} lookups and the Locker calls themselves,
     * this is all the advice adds to a call, which is why the benchmarks time it on its own.
     *
     * @return null when the method carries no {@link DistributedLock}
     */
    LockedCall prepare(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : invocation.getMethod().getDeclaringClass();
        LockDefinition definition = definitions.find(invocation.getMethod(), targetClass);
        if (definition == null) {
            return null;
        }
        return new LockedCall(definition, definition.keys(target, invocation.getArguments()), definition.waitTime(defaultWait.get()), invocation);
    }

    /** The Locker, as each acquire and release asks for it. */
    Locker locker() {
        return locker.get();
    }

    /** One invocation of an annotated method: its keys, its wait, and how to take and release its locks. */
    final class LockedCall {

        final LockDefinition definition;
        final List<String> keys;
        final Duration wait;
        final MethodInvocation invocation;

        LockedCall(LockDefinition definition, List<String> keys, Duration wait, MethodInvocation invocation) {
            this.definition = definition;
            this.keys = keys;
            this.wait = wait;
            this.invocation = invocation;
        }

        /** Whether the lock is to be held until a transaction the caller started completes. */
        boolean releasedWithCallerTransaction() {
            return releaseAfterTransaction && TRANSACTIONS_PRESENT && CallerTransaction.isActive();
        }

        private Object runOnThisThread() throws Throwable {
            boolean callerTransaction = releasedWithCallerTransaction();
            LockAcquisitionException failure = acquire(null);
            if (failure != null) {
                SkippedCalls.log(this, locker(), failure);
                return onFailure(failure);
            }
            Object result;
            try {
                result = proceed();
            } catch (Throwable methodFailure) {
                releaseAfter(callerTransaction, methodFailure);
                throw methodFailure;
            }
            releaseAfter(callerTransaction, null);
            return result;
        }

        private void releaseAfter(boolean callerTransaction, Throwable methodFailure) {
            if (callerTransaction) {
                CallerTransaction.releaseOnCompletion(this::requireHeldBeforeCommit, () -> release(null));
                return;
            }
            releaseAfter((String) null, methodFailure);
        }

        /**
         * Releases after the method ran: a failed release (a lock lost meanwhile) fails a method that succeeded,
         * and comes suppressed with the exception of one that failed, which it must not replace.
         */
        private void releaseAfter(String owner, Throwable methodFailure) {
            try {
                release(owner);
            } catch (RuntimeException releaseFailure) {
                if (methodFailure == null) {
                    throw releaseFailure;
                }
                methodFailure.addSuppressed(releaseFailure);
            }
        }

        /**
         * Fails the caller's commit, which then rolls back, when a key is no longer held (one Redis call per key):
         * another instance may have taken the lock meanwhile and read what the transaction had not committed.
         */
        private void requireHeldBeforeCommit() {
            Locker locks = locker();
            for (String key : keys) {
                if (!locks.isHeldByCurrentThread(key)) {
                    throw new LockLostException(key, "Lock '" + key + "' of " + definition.method.getName()
                            + " was lost before its caller's transaction committed (its lease ran out, or Redis lost it); the transaction is rolled back");
                }
            }
        }

        private Object runUntilStageCompletes() throws Throwable {
            String owner = UUID.randomUUID().toString();
            LockAcquisitionException failure = acquire(owner);
            if (failure != null) {
                return definition.onFailure == LockFailurePolicy.THROW && definition.fallback == null
                        ? CompletableFuture.failedFuture(failure) : onFailure(failure);
            }
            Object result;
            try {
                result = proceed();
            } catch (Throwable methodFailure) {
                releaseAfter(owner, methodFailure);
                throw methodFailure;
            }
            if (result == null) {
                release(owner);
                return null;
            }
            CompletionStage<?> body = (CompletionStage<?>) result;
            CompletableFuture<Object> settled = new CompletableFuture<>();
            body.whenComplete((value, error) -> {
                Throwable releaseFailure = null;
                try {
                    release(owner);
                } catch (RuntimeException e) {
                    releaseFailure = e;
                }
                StageLocking.settle(settled, value, error, releaseFailure);
            });
            // Not body.whenComplete(release) itself: a caller cancelling that stage would skip the release, and the
            // watchdog keep the lock for ever. The caller's stage, of the body's own kind, completes after the release.
            return body.handle((value, error) -> null).thenCompose(released -> settled);
        }

        /**
         * Takes every key, all or nothing, under one deadline: a thread owner through the Locker's
         * multi-lock, an owner token key by key in the multi-lock's order, giving back what it took on failure.
         *
         * @param owner null for the calling thread, else an owner token
         * @return null when all keys are held, else the failure naming the key that stayed busy and its holder ({@link BusyKeys})
         */
        LockAcquisitionException acquire(String owner) {
            String previousName = LockNameScope.enter(definition.name);
            try {
                Locker locks = locker();
                long waitMillis = wait.toMillis() < 0 ? Locker.WAIT_FOREVER : wait.toMillis();
                if (keys.size() == 1) {
                    boolean acquired = owner == null
                            ? locks.tryLock(keys.get(0), waitMillis, definition.leaseMillis, TimeUnit.MILLISECONDS)
                            : locks.tryLockAs(owner, keys.get(0), waitMillis, definition.leaseMillis, TimeUnit.MILLISECONDS);
                    return acquired ? null : new LockAcquisitionException(keys.get(0), wait);
                }
                RedisMultiLock multiLock = locks.getMultiLock(keys.toArray(String[]::new));
                if (owner == null) {
                    return multiLock.tryLock(waitMillis, definition.leaseMillis, TimeUnit.MILLISECONDS)
                            ? null : BusyKeys.failure(this, locks, multiLock.getKeys());
                }
                return acquireOneByOne(locks, multiLock.getKeys(), owner, waitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new LockAcquisitionException(keys.size() == 1 ? keys.get(0) : keys.toString(), wait, e);
            } finally {
                LockNameScope.exit(previousName);
            }
        }

        private LockAcquisitionException acquireOneByOne(Locker locks, List<String> ordered, String owner, long waitMillis)
                throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
            List<String> taken = new ArrayList<>(ordered.size());
            try {
                for (String key : ordered) {
                    long remaining = waitMillis < 0 ? Locker.WAIT_FOREVER : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                    if (!locks.tryLockAs(owner, key, remaining, definition.leaseMillis, TimeUnit.MILLISECONDS)) {
                        releaseOneByOne(locks, taken, owner);
                        return BusyKeys.failure(this, locks, List.of(key));
                    }
                    taken.add(key);
                }
                return null;
            } catch (InterruptedException | RuntimeException e) {
                releaseOneByOne(locks, taken, owner);
                throw e;
            }
        }

        void release(String owner) {
            String previousName = LockNameScope.enter(definition.name);
            try {
                Locker locks = locker();
                if (!definition.holdAtLeast.isZero()) { // a single key: LockDefinitions refuses several
                    if (owner == null) {
                        locks.unlock(keys.get(0), definition.holdAtLeast);
                    } else {
                        locks.unlockAs(owner, keys.get(0), definition.holdAtLeast);
                    }
                } else if (keys.size() == 1) {
                    if (owner == null) {
                        locks.unlock(keys.get(0));
                    } else {
                        locks.unlockAs(owner, keys.get(0));
                    }
                } else if (owner == null) {
                    locks.getMultiLock(keys.toArray(String[]::new)).unlock();
                } else {
                    releaseOneByOne(locks, keys, owner);
                }
            } finally {
                LockNameScope.exit(previousName);
            }
        }

        private void releaseOneByOne(Locker locks, List<String> held, String owner) {
            RuntimeException first = null;
            for (int i = held.size() - 1; i >= 0; i--) {
                try {
                    locks.unlockAs(owner, held.get(i));
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }

        /** Runs the method body, with {@link CurrentLock} telling it what it holds. */
        Object proceed() throws Throwable {
            CurrentLock.enter(keys);
            try {
                return invocation.proceed();
            } finally {
                CurrentLock.exit();
            }
        }

        /** Runs the fallback, or returns the skip value, or throws: as the annotation says. */
        Object onFailure(LockAcquisitionException failure) throws Throwable {
            if (definition.fallback != null) {
                return invokeFallback(failure);
            }
            if (definition.onFailure == LockFailurePolicy.SKIP) {
                return skipValue(definition.method.getReturnType());
            }
            throw failure;
        }

        Object invokeFallback(LockAcquisitionException failure) throws Throwable {
            Method fallback = definition.fallback.method();
            Object[] args = invocation.getArguments();
            if (definition.fallback.takesException()) {
                Object[] withException = java.util.Arrays.copyOf(args, args.length + 1);
                withException[args.length] = failure;
                args = withException;
            }
            try {
                return fallback.invoke(invocation.getThis(), args);
            } catch (InvocationTargetException e) {
                throw e.getTargetException();
            }
        }
    }

    static Object skipValue(Class<?> returnType) {
        if (returnType == Optional.class) {
            return Optional.empty();
        }
        if (CompletionStage.class.isAssignableFrom(returnType)) {
            return CompletableFuture.completedFuture(null);
        }
        return null;
    }

    /** Kept apart so that nothing of spring-tx is loaded when it is not on the classpath. */
    private static final class CallerTransaction {

        /** Called before the method runs: this interceptor sits outside the method's own @Transactional, so an active one belongs to a caller. */
        static boolean isActive() {
            return TransactionSynchronizationManager.isSynchronizationActive() && TransactionSynchronizationManager.isActualTransactionActive();
        }

        /**
         * {@code beforeCommit} may fail the commit (Spring then rolls back); {@code release} runs after a commit or a rollback.
         * A loss that failed the commit reached the caller as the commit's exception: the release that follows the rollback
         * finds the same loss, and Spring would log it again at ERROR, so that one is dropped.
         */
        static void releaseOnCompletion(Runnable beforeCommit, Runnable release) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                private boolean lossReported;

                @Override
                public void beforeCommit(boolean readOnly) {
                    try {
                        beforeCommit.run();
                    } catch (LockLostException e) {
                        lossReported = true;
                        throw e;
                    }
                }

                @Override
                public void afterCompletion(int status) {
                    try {
                        release.run();
                    } catch (LockLostException e) {
                        if (!lossReported) {
                            throw e;
                        }
                    }
                }
            });
        }
    }
}
