package io.github.redislock.reliability;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.testsupport.RedisServerProcess;

import org.awaitility.core.ConditionTimeoutException;

/**
 * A leader election among {@link LeaderWorker} JVMs of one kind, with faults injected on its leader in
 * turn (a graceful stop, {@code kill -9}, {@code SIGSTOP} past the lease and {@code SIGCONT}), each
 * measured on the {@link LeaderStore}'s clock. A stopped or killed instance is replaced by a new one, so
 * the election always has its candidates.
 */
final class LeaderElectionRun implements AutoCloseable {

    /** What one fault cost. */
    record Failover(String kind, String fault, long toNewLeaderMillis, Long revokedAfterResumeMillis) {
    }

    private final String kind;
    private final long leaseMillis;
    private final RedisServerProcess lockRedis;
    private final LeaderStore store;
    private final int storePort;
    private final Map<String, WorkerProcess> workers = new LinkedHashMap<>();
    private final List<Failover> failovers = new ArrayList<>();
    private final String role;
    private int started;

    LeaderElectionRun(String kind, long leaseMillis, RedisServerProcess lockRedis, RedisServerProcess storeRedis) {
        this.kind = kind;
        this.leaseMillis = leaseMillis;
        this.lockRedis = lockRedis;
        this.storePort = storeRedis.port();
        this.store = LeaderStore.connect(storePort);
        this.role = "role-" + kind;
        lockRedis.flushAll();
        store.reset();
    }

    /** Starts {@code count} candidates and waits until one leads. */
    LeaderElectionRun start(int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add(startWorker());
        }
        awaitQuietly(Duration.ofSeconds(60), () -> names.stream().allMatch(store::isStarted), "every worker to start");
        awaitQuietly(Duration.ofSeconds(30), () -> leader() != null, "a first leader");
        return this;
    }

    /**
     * The leader leaves its candidacy gracefully (and its JVM exits); a new candidate replaces it. Timed from when
     * the leader began to leave: the worker notices the request by polling the store, which a loaded machine may delay.
     */
    Failover gracefulStop() {
        String leader = awaitLeader();
        long requested = store.mark("stop", leader);
        store.requestLeave(leader);
        long leaving = awaitEvent("leaving", leader, requested);
        Failover failover = new Failover(kind, "graceful stop", awaitOtherGranted(leader, leaving) - leaving, null);
        workers.get(leader).awaitExit(20);
        replace(leader);
        return record(failover);
    }

    /** {@code kill -9} of the leader; a new candidate replaces it. */
    Failover kill() {
        String leader = awaitLeader();
        long fault = store.mark("kill", leader);
        workers.get(leader).kill();
        store.dead(leader);
        Failover failover = new Failover(kind, "kill -9", awaitOtherGranted(leader, fault) - fault, null);
        replace(leader);
        return record(failover);
    }

    /** {@code SIGSTOP} of the leader until another leads and a while longer, then {@code SIGCONT}: it must learn it was revoked. */
    Failover pause() throws InterruptedException {
        String leader = awaitLeader();
        store.paused(leader, true);
        long fault = store.mark("pause", leader);
        workers.get(leader).pause();
        long granted;
        try {
            granted = awaitOtherGranted(leader, fault);
            Thread.sleep(500);
        } catch (RuntimeException | Error e) {
            workers.get(leader).resume();
            throw e;
        }
        long resumed = store.mark("resume", leader); // before the signal: the resumed instance may be revoked within milliseconds
        workers.get(leader).resume();
        store.paused(leader, false);
        long revoked = awaitEvent("revoked", leader, resumed);
        return record(new Failover(kind, "SIGSTOP past the lease", granted - fault, revoked - resumed));
    }

    List<Failover> failovers() {
        return failovers;
    }

    List<String> violations() {
        return store.violations();
    }

    List<String> staleActions() {
        return store.staleActions();
    }

    List<String> fencedActions() {
        return store.fencedActions();
    }

    int pauses() {
        return (int) failovers.stream().filter(f -> f.revokedAfterResumeMillis() != null).count();
    }

    private Failover record(Failover failover) {
        failovers.add(failover);
        return failover;
    }

    private String startWorker() {
        String name = kind + "-w" + started++;
        Path logs = Path.of("target", "reliability", "workers", "leader-" + kind);
        workers.put(name, WorkerProcess.start(name, logs, LeaderWorker.class, List.of(Integer.toString(lockRedis.port()),
                Integer.toString(storePort), name, kind, role, Long.toString(leaseMillis))));
        return name;
    }

    private void replace(String gone) {
        workers.remove(gone).destroy();
        String name = startWorker();
        awaitQuietly(Duration.ofSeconds(60), () -> store.isStarted(name), "replacement " + name + " to start");
    }

    private String leader() {
        String current = store.currentLeader();
        return current != null && store.leads(current) ? current : null;
    }

    private String awaitLeader() {
        awaitQuietly(Duration.ofSeconds(30), () -> leader() != null, "a leader");
        return leader();
    }

    /** Store time of the first grant to an instance other than {@code old} after {@code since}. */
    private long awaitOtherGranted(String old, long since) {
        long[] at = new long[1];
        awaitQuietly(Duration.ofMillis(leaseMillis * 3 + 10_000), () -> {
            for (String[] event : store.events()) {
                if (event[0].equals("granted") && !event[1].equals(old) && Long.parseLong(event[2]) >= since) {
                    at[0] = Long.parseLong(event[2]);
                    return true;
                }
            }
            return false;
        }, "another instance than " + old + " to be granted");
        return at[0];
    }

    private long awaitEvent(String what, String worker, long since) {
        long[] at = new long[1];
        awaitQuietly(Duration.ofMillis(leaseMillis * 3 + 10_000), () -> {
            for (String[] event : store.events()) {
                if (event[0].equals(what) && event[1].equals(worker) && Long.parseLong(event[2]) >= since) {
                    at[0] = Long.parseLong(event[2]);
                    return true;
                }
            }
            return false;
        }, worker + " to be " + what);
        return at[0];
    }

    private void awaitQuietly(Duration atMost, java.util.concurrent.Callable<Boolean> condition, String what) {
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(10)).until(condition);
        } catch (ConditionTimeoutException e) {
            StringBuilder logs = new StringBuilder();
            workers.values().forEach(w -> logs.append("\n--- ").append(w).append(w.isAlive() ? "" : " (exited)").append(":\n").append(w.logTail()));
            throw new AssertionError("Timed out after " + atMost.toSeconds() + " s waiting for " + what + " (" + kind + ")" + logs, e);
        }
    }

    @Override
    public void close() {
        workers.values().forEach(WorkerProcess::destroy);
        store.close();
    }
}
