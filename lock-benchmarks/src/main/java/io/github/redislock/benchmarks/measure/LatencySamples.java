package io.github.redislock.benchmarks.measure;

import java.util.Arrays;

/**
 * Latencies of one thread, kept whole and sorted at the end. A run of 10 s at tens of thousands of
 * operations per second is a few hundred thousand longs: exact percentiles cost less than a
 * histogram library would.
 */
public final class LatencySamples {

    private long[] nanos = new long[1024];
    private int size;

    public void add(long latencyNanos) {
        if (size == nanos.length) {
            nanos = Arrays.copyOf(nanos, size * 2);
        }
        nanos[size++] = latencyNanos;
    }

    public int size() {
        return size;
    }

    /** All samples of {@code parts} together, sorted, for {@link #percentileMicros}. */
    public static long[] merge(Iterable<LatencySamples> parts) {
        int total = 0;
        for (LatencySamples part : parts) {
            total += part.size;
        }
        long[] all = new long[total];
        int at = 0;
        for (LatencySamples part : parts) {
            System.arraycopy(part.nanos, 0, all, at, part.size);
            at += part.size;
        }
        Arrays.sort(all);
        return all;
    }

    /** The {@code percentile} (0-100) of sorted nanosecond samples in microseconds, or NaN without samples. */
    public static double percentileMicros(long[] sorted, double percentile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1_000.0;
    }
}
