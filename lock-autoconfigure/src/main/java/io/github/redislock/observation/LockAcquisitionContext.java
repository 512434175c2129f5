package io.github.redislock.observation;

import io.github.redislock.LockObserver.ObservedLock;
import io.micrometer.observation.Observation;

/** The context of one lock acquisition observation ({@value DefaultLockAcquisitionConvention#NAME}), wait included. */
public class LockAcquisitionContext extends Observation.Context {

    /** How an acquisition ended, as the {@code lock.result} tag shows it. */
    public enum Result {
        ACQUIRED("acquired"), TIMED_OUT("timed-out"), FAILED("failed");

        private final String tagValue;

        Result(String tagValue) {
            this.tagValue = tagValue;
        }

        public String tagValue() {
            return tagValue;
        }
    }

    private final ObservedLock lock;
    private final String lockName;
    private volatile Result result;

    public LockAcquisitionContext(ObservedLock lock, String lockName) {
        this.lock = lock;
        this.lockName = lockName;
    }

    /** The lock being taken; its key is for traces only. */
    public ObservedLock getLock() {
        return lock;
    }

    /** The low-cardinality name of the lock (see {@link LockNamer}). */
    public String getLockName() {
        return lockName;
    }

    /** How it ended; null while waiting. */
    public Result getResult() {
        return result;
    }

    void setResult(Result result) {
        this.result = result;
    }
}
