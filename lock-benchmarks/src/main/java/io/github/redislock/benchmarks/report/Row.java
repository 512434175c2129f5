package io.github.redislock.benchmarks.report;

import java.util.List;

/**
 * One measured row: an implementation in one setup of one scenario. Figures a scenario does not
 * measure stay NaN (printed as "-"); {@link #note} says why a row has no figures or is marked.
 */
public final class Row {

    public final String scenario;
    public final String implementationId;
    public final String implementation;
    public final int threads;
    public final int instances;

    public double opsPerSecond = Double.NaN;
    public double p50Micros = Double.NaN;
    public double p99Micros = Double.NaN;
    /** Uncontended scenario: Redis commands per lock+unlock pair, those inside scripts counted and the script calls not. */
    public double commandsPerOp = Double.NaN;
    /** Share of one core the Redis server used during the measured window. */
    public double redisCpuShare = Double.NaN;
    /** Uncontended scenario: CPU time of the benchmark JVM (all its threads, GC included, the JIT compiler not on Linux) per pair, in core-µs; held locks: the same per lock taken. */
    public double clientCpuMicrosPerOp = Double.NaN;
    /** Uncontended scenario: CPU time of the Redis server ({@code INFO cpu}) per pair, in core-µs; held locks: the same per lock taken. */
    public double redisCpuMicrosPerOp = Double.NaN;

    public double handOffP50Micros = Double.NaN;
    public double handOffP99Micros = Double.NaN;
    public long minThreadOps = -1;
    public long maxThreadOps = -1;
    /** Fewest acquisitions of one thread divided by the fair share (total / threads). */
    public double minFairShare = Double.NaN;
    public double sameThreadShare = Double.NaN;
    public long violations = -1;

    public int heldLocks;
    public double commandsPerSecond = Double.NaN;
    public double scriptCallsPerSecond = Double.NaN;
    public double scriptCallsPerTick = Double.NaN;
    /** Renewal ticks that fit in the hold; one more may fall into it at its edges. */
    public double renewalTicks = Double.NaN;
    public double clientCpuMillisPerSecond = Double.NaN;
    public int threadsAdded = Integer.MIN_VALUE;

    /** Scenario 4: which benchmark of the scenario this row is; the waiters scenario: "looping" for its comparison rows; the cluster scenario: which setup (cluster or one master). */
    public String variant = "";
    /** Scenario 4: mean time of one call, and JMH's 99.9% confidence half-width of it. */
    public double callMicros = Double.NaN;
    public double callMicrosError = Double.NaN;
    public int redisRoundTrips = -1;
    /** Scenario 4, annotated rows: this row minus its by-hand row, mean of the per-round differences and its 99.9% half-width. */
    public double differenceMicros = Double.NaN;
    public double differenceMicrosError = Double.NaN;

    /** Waiters scenario: waiters that got the lock exactly once, and hand-offs that did not go to the head of the queue as Redis listed it (-1: no queue to compare with). */
    public long servedOnce = -1;
    public long outOfQueueOrder = -1;
    /** Waiters and held-locks scenarios: growth of Redis' used_memory per queued waiter or held lock. */
    public double redisBytesPerItem = Double.NaN;
    /** Held-locks scenario: seconds to take and to release them all, renewal script calls one instance should need per tick, keys left after the release. */
    public double takeSeconds = Double.NaN;
    public double releaseSeconds = Double.NaN;
    public long renewalCallsGoal = -1;
    public long keysLeft = -1;
    /** Cluster scenario: shards (masters) each release message reached, the publishing one included. */
    public double shardsPerReleaseMessage = Double.NaN;

    public String note = "";

    /** Scenarios measured in rounds ({@code --rounds}: uncontended, contended, waiters, held locks, old against new): the round that measured this row, from 1. */
    public int round = 1;
    /** A row of medians ({@link RoundMedians}): the rows of its rounds, in the order they were measured; empty for a row measured once. */
    public List<Row> rounds = List.of();

    public Row(String scenario, String implementationId, String implementation, int threads, int instances) {
        this.scenario = scenario;
        this.implementationId = implementationId;
        this.implementation = implementation;
        this.threads = threads;
        this.instances = instances;
    }

    public boolean measured() {
        return !Double.isNaN(opsPerSecond) || !Double.isNaN(commandsPerSecond);
    }

    public void addNote(String text) {
        note = note.isEmpty() ? text : note + "; " + text;
    }
}
