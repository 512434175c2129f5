package io.github.redislock.benchmarks.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A run that reads at rest holds every worker between two iterations while its hooks read: a reading at the
 * window's edges sees no iteration in flight, and the iterations completed between the two readings are
 * exactly those counted as measured.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TimedWorkersTest {

    private static final int THREADS = 8;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong measured = new AtomicLong();
    private final long[] completedAtEdges = new long[2];
    private final int[] inFlightAtEdges = {-1, -1};

    @Test
    void theHooksOfARunReadingAtRestSeeNoIterationInFlight() {
        TimedWorkers.Outcome outcome = runReadingAtRest();

        assertThat(outcome.failure()).isNull();
        assertThat(inFlightAtEdges).containsExactly(0, 0);
    }

    @Test
    void theIterationsCompletedBetweenTheReadingsAreThoseCountedAsMeasured() {
        TimedWorkers.Outcome outcome = runReadingAtRest();

        assertThat(outcome.failure()).isNull();
        assertThat(measured.get()).isPositive().isEqualTo(completedAtEdges[1] - completedAtEdges[0]);
        assertThat(completed.get()).as("iterations of the warm-up, the window and none after").isEqualTo(completedAtEdges[1]);
    }

    /** Iterations that last 50-200 µs, so that at any instant some are in flight. */
    private TimedWorkers.Outcome runReadingAtRest() {
        return TimedWorkers.runReadingAtRest("timed-workers-test", THREADS, Duration.ofMillis(200), Duration.ofMillis(300),
                (worker, measuring) -> {
                    inFlight.incrementAndGet();
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
                    completed.incrementAndGet();
                    if (measuring) {
                        measured.incrementAndGet();
                    }
                    inFlight.decrementAndGet();
                }, () -> readEdge(0), () -> readEdge(1));
    }

    /** Reads twice, a little apart: an iteration that started or ended meanwhile shows as a difference. */
    private void readEdge(int edge) {
        long before = completed.get();
        int running = inFlight.get();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        completedAtEdges[edge] = completed.get();
        inFlightAtEdges[edge] = completedAtEdges[edge] == before ? Math.max(running, inFlight.get()) : Integer.MAX_VALUE;
    }
}
