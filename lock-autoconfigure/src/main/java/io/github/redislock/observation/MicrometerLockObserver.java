package io.github.redislock.observation;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.LockObserver;
import io.github.redislock.observation.LockAcquisitionContext.Result;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Turns lock events into Micrometer observations and meters. An acquisition is an observation (a
 * timer for metrics, a span for traces, the wait inside it); the rest are plain meters.
 */
public final class MicrometerLockObserver implements LockObserver {

    private static final Log log = LogFactory.getLog(MicrometerLockObserver.class);

    static final String HOLD_TIMER = "redis.lock.hold";
    static final String LOST_COUNTER = "redis.lock.lost";
    static final String RENEWALS_COUNTER = "redis.lock.watchdog.renewals";

    private static final DefaultLockAcquisitionConvention DEFAULT_CONVENTION = new DefaultLockAcquisitionConvention();

    private final ObservationRegistry observations;
    private final MeterRegistry meters;
    private final LockNamer namer;
    private final Counter renewed;
    private final Counter renewalsLost;
    private final Counter renewalsFailed;
    private final AtomicBoolean namerFailureLogged = new AtomicBoolean();

    public MicrometerLockObserver(ObservationRegistry observations, MeterRegistry meters, LockNamer namer) {
        this.observations = observations;
        this.meters = meters;
        this.namer = namer;
        this.renewed = renewals("renewed");
        this.renewalsLost = renewals("lost");
        this.renewalsFailed = renewals("failed");
    }

    @Override
    public Acquisition acquisitionStarted(ObservedLock lock) {
        return acquisition(lock, true);
    }

    /** No scope: the acquisition ends on another thread, and the caller's thread must not keep it as its current observation. */
    @Override
    public Acquisition acquisitionStartedWithoutThread(ObservedLock lock) {
        return acquisition(lock, false);
    }

    /** @param scoped whether Redis calls made on this thread while waiting become child spans */
    private Acquisition acquisition(ObservedLock lock, boolean scoped) {
        LockAcquisitionContext context = new LockAcquisitionContext(lock, nameOf(lock));
        Observation observation = Observation.createNotStarted(null, DEFAULT_CONVENTION, () -> context, observations);
        Observation.Scope previous = observations.getCurrentObservationScope();
        Observation.Scope scope = begin(observation, scoped, previous);
        return new Acquisition() {
            @Override
            public void acquired() {
                end(Result.ACQUIRED);
            }

            @Override
            public void timedOut() {
                end(Result.TIMED_OUT);
            }

            @Override
            public void failed(Throwable cause) {
                try {
                    observation.error(cause);
                } finally { // a handler failing on the error must not keep the observation running
                    end(Result.FAILED);
                }
            }

            private void end(Result result) {
                context.setResult(result);
                try {
                    if (scope != null) {
                        closeScope(scope, previous);
                    }
                } finally {
                    observation.stop();
                }
            }
        };
    }

    /**
     * Starts the acquisition's observation and, when {@code scoped}, returns its scope on this thread (else
     * null). A handler that throws on the start leaves the handlers before it started (the meter handler's
     * active-acquisitions sample, say), and one that throws as the scope opens leaves the scope the thread's
     * current one (Micrometer sets it before it tells the handlers): every later observation of the thread
     * would be a child of this lock's acquisition. So the thread gets its {@code previous} scope back and
     * the observation is stopped before the failure goes on.
     */
    private Observation.Scope begin(Observation observation, boolean scoped, Observation.Scope previous) {
        try {
            observation.start();
            return scoped ? observation.openScope() : null;
        } catch (RuntimeException e) {
            observations.setCurrentObservationScope(previous);
            try {
                observation.stop();
            } catch (RuntimeException stopFailure) {
                e.addSuppressed(stopFailure);
            }
            throw e;
        }
    }

    /** Closes the acquisition's scope; a handler that throws as it closes leaves the thread its {@code previous} scope all the same. */
    private void closeScope(Observation.Scope scope, Observation.Scope previous) {
        try {
            scope.close();
        } catch (RuntimeException e) {
            observations.setCurrentObservationScope(previous);
            throw e;
        }
    }

    @Override
    public void released(ObservedLock lock, long heldNanos) {
        Timer.builder(HOLD_TIMER).description("How long locks were held, from first acquisition to final release")
                .tags("lock.name", nameOf(lock), "lock.kind", lock.kind())
                .register(meters).record(heldNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void lost(ObservedLock lock, boolean byWatchdog) {
        Counter.builder(LOST_COUNTER).description("Locks found gone before their holder unlocked them")
                .tags("lock.name", nameOf(lock), "lock.kind", lock.kind(), "detected.by", byWatchdog ? "watchdog" : "unlock")
                .register(meters).increment();
    }

    @Override
    public void renewed(int renewedLocks, int lostLocks) {
        renewed.increment(renewedLocks);
        renewalsLost.increment(lostLocks);
    }

    @Override
    public void renewalFailed(int locks, Throwable cause) {
        renewalsFailed.increment(locks);
    }

    private Counter renewals(String result) {
        return Counter.builder(RENEWALS_COUNTER).description("Lock renewals by the watchdog, per lock and tick")
                .tag("result", result).register(meters);
    }

    /**
     * The caller's name, else the namer's. A namer that throws or names nothing (say, one that expects a
     * ':' in every key) costs the lock its own name, not its metrics: it is named
     * {@value LockNamer#DEFAULT_NAME}, and the first such failure is logged at WARN.
     */
    private String nameOf(ObservedLock lock) {
        if (lock.name() != null) {
            return lock.name();
        }
        String name;
        try {
            name = namer.name(lock.key());
        } catch (RuntimeException e) {
            namerFailed(lock, e.toString());
            return LockNamer.DEFAULT_NAME;
        }
        if (name == null || name.isBlank()) {
            namerFailed(lock, "it named it " + (name == null ? "null" : "'" + name + "'"));
            return LockNamer.DEFAULT_NAME;
        }
        return name;
    }

    private void namerFailed(ObservedLock lock, String why) {
        String message = "The LockNamer " + namer.getClass().getName() + " failed to name the lock '" + lock.key() + "' (" + why
                + "); it is named '" + LockNamer.DEFAULT_NAME + "' in metrics";
        if (namerFailureLogged.compareAndSet(false, true)) {
            log.warn(message + ". Later failures are logged at DEBUG");
        } else if (log.isDebugEnabled()) {
            log.debug(message);
        }
    }
}
