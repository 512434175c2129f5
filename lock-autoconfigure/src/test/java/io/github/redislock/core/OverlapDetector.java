package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A critical section that shows whether two callers were ever inside it at once, from any thread or
 * application instance: each pass reads a counter from Redis, pauses, and writes it back incremented,
 * so two passes inside together read the same value and one increment is lost. An in-memory count of
 * the passes inside catches the overlap as it happens (within one JVM).
 *
 * <p>Why the pause: without it the window between read and write is a round trip, and a lock that
 * lets everyone in would seldom be caught. A run without the lock ({@link #assertPassesOverlapped()})
 * shows that this section does catch callers that are not excluded.
 */
public final class OverlapDetector implements AutoCloseable {

    /** Long enough for another thread to get a core and enter during the pause; short enough for hundreds of passes. */
    static final Duration PAUSE = Duration.ofMillis(2);

    private final StringRedisTemplate redis;
    private final String counterKey;
    private final long pauseNanos;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger passes = new AtomicInteger();
    private final AtomicInteger reading = new AtomicInteger();

    /** @param counterKey a Redis key of this detector alone (deleted by {@link #close()}) */
    public OverlapDetector(StringRedisTemplate redis, String counterKey) {
        this(redis, counterKey, PAUSE);
    }

    /**
     * A detector with its own pause between read and write, for a test of many thousand passes whose callers all
     * live in this JVM, where the in-memory count sees an overlap however short the section is.
     */
    OverlapDetector(StringRedisTemplate redis, String counterKey, Duration pause) {
        this.redis = redis;
        this.counterKey = counterKey;
        this.pauseNanos = pause.toNanos();
    }

    /** One pass through the critical section: read the counter, pause, write it back plus one. */
    public void pass() {
        passes.incrementAndGet();
        if (inside.incrementAndGet() != 1 || reading.get() != 0) {
            overlaps.incrementAndGet();
        }
        try {
            String value = redis.opsForValue().get(counterKey);
            long next = (value == null ? 0 : Long.parseLong(value)) + 1;
            LockSupport.parkNanos(pauseNanos);
            redis.opsForValue().set(counterKey, Long.toString(next));
        } finally {
            inside.decrementAndGet();
        }
    }

    /**
     * A reader's pass, which may share the section with other readers but not with a {@link #pass()}:
     * it reads the counter, pauses, and reads it again; a write in between, or a writer inside, is an overlap.
     */
    public void readPass() {
        reading.incrementAndGet();
        try {
            String before = redis.opsForValue().get(counterKey);
            LockSupport.parkNanos(pauseNanos);
            String after = redis.opsForValue().get(counterKey);
            if (inside.get() != 0 || !java.util.Objects.equals(before, after)) {
                overlaps.incrementAndGet();
            }
        } finally {
            reading.decrementAndGet();
        }
    }

    /** The lock kept every pass alone: none found another inside, and Redis counted every pass. */
    public void assertEveryPassWasAlone(int expectedPasses) {
        assertThat(passes.get()).as("passes through the critical section").isEqualTo(expectedPasses);
        assertThat(overlaps.get()).as("passes that found another caller inside").isZero();
        assertThat(counter()).as("counter in Redis after %d passes (fewer: two passes read the same value)", expectedPasses)
                .isEqualTo(expectedPasses);
    }

    /** Without a lock, passes overlapped: proof that this detector sees callers that are not excluded. */
    public void assertPassesOverlapped() {
        assertThat(overlaps.get()).as("passes that found another caller inside, without a lock").isPositive();
        assertThat(counter()).as("counter in Redis after %d passes without a lock", passes.get()).isLessThan(passes.get());
    }

    private long counter() {
        String value = redis.opsForValue().get(counterKey);
        return value == null ? 0 : Long.parseLong(value);
    }

    @Override
    public void close() {
        redis.delete(counterKey);
    }
}
