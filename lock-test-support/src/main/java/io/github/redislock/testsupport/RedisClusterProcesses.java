package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A Redis Cluster of local {@link RedisServerProcess} masters, no replicas: the 16,384 hash slots split
 * evenly in order, joined with {@code CLUSTER MEET} and {@code ADDSLOTS} rather than
 * {@code redis-cli --cluster create}, so nothing beyond {@code redis-server} is needed. Used by the
 * cluster tests and by the benchmarks' cluster scenario.
 */
public final class RedisClusterProcesses implements AutoCloseable {

    private static final int SLOTS = 16384;
    private static final Duration FORMING_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServerProcess> masters;

    private RedisClusterProcesses(List<RedisServerProcess> masters) {
        this.masters = List.copyOf(masters);
    }

    /**
     * Starts {@code count} masters with {@code start} (given the cluster options) and returns once every
     * one reports {@code cluster_state:ok}.
     *
     * @throws IllegalStateException when the cluster is not formed within 30 s; the masters are stopped then
     */
    public static RedisClusterProcesses start(int count, Function<String[], RedisServerProcess> start) {
        List<RedisServerProcess> masters = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                // Without full coverage the healthy masters keep serving while one is paused.
                masters.add(start.apply(new String[] {"--cluster-enabled", "yes", "--cluster-node-timeout", "2000",
                        "--cluster-require-full-coverage", "no"}));
            }
            for (int i = 0; i < count; i++) {
                List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = i * SLOTS / count; slot < (i + 1) * SLOTS / count; slot++) {
                    addSlots.add(Integer.toString(slot));
                }
                masters.get(i).command(addSlots.toArray(String[]::new));
            }
            for (int i = 1; i < count; i++) {
                masters.get(0).command("CLUSTER", "MEET", masters.get(i).host(), Integer.toString(masters.get(i).port()));
            }
            awaitFormed(masters);
            return new RedisClusterProcesses(masters);
        } catch (RuntimeException e) {
            masters.forEach(RedisServerProcess::stop);
            throw e;
        }
    }

    /** The masters in slot order: master {@code i} serves slots {@code i * 16384 / count} up to the next one's first. */
    public List<RedisServerProcess> masters() {
        return masters;
    }

    /** {@code host:port} of every master, as cluster clients take their seed nodes. */
    public List<String> addresses() {
        return masters.stream().map(master -> master.host() + ":" + master.port()).toList();
    }

    /** Which master serves {@code slot}. */
    public int masterOf(int slot) {
        int master = 0;
        while (master + 1 < masters.size() && slot >= (master + 1) * SLOTS / masters.size()) {
            master++;
        }
        return master;
    }

    @Override
    public void close() {
        masters.forEach(RedisServerProcess::stop);
    }

    /**
     * Until every master reports {@code cluster_state:ok} and has a live bus link to every other one.
     * The state turns ok as soon as the slots are covered, while masters that only met through the
     * first may still be shaking hands; a PUBLISH travels to the other masters over those links, so a
     * message published on a master not yet linked to the subscriber's would be lost.
     */
    private static void awaitFormed(List<RedisServerProcess> masters) {
        long deadline = System.nanoTime() + FORMING_TIMEOUT.toNanos();
        while (!masters.stream().allMatch(master -> String.valueOf(master.command("CLUSTER", "INFO")).contains("cluster_state:ok")
                && linkedToAll(master, masters.size()))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The Redis Cluster of " + masters + " did not reach cluster_state:ok with every bus link up within "
                        + FORMING_TIMEOUT.toSeconds() + " s");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while the Redis Cluster formed", e);
            }
        }
    }

    /** Whether {@code master} knows {@code count} masters, none failing or still in handshake, each linked. */
    private static boolean linkedToAll(RedisServerProcess master, int count) {
        List<String> nodes = String.valueOf(master.command("CLUSTER", "NODES")).lines().filter(line -> !line.isBlank()).toList();
        return nodes.size() == count && nodes.stream().allMatch(node -> node.contains(" connected")
                && !node.contains("handshake") && !node.contains("fail") && !node.contains("noaddr"));
    }
}
