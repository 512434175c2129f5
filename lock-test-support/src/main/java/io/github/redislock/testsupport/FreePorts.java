package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands out free loopback ports to the servers of this JVM, each port at most once.
 *
 * <p>Why never reuse: a server that was killed keeps its port reserved for its own
 * {@link RedisServerProcess#restart()}, and two servers started at the same time never race for one
 * port. A cluster node also needs its bus port (port + 10000) free, so both are reserved together.
 */
final class FreePorts {

    private static final int CLUSTER_BUS_OFFSET = 10000;
    private static final int HIGHEST_CLUSTER_PORT = 65535 - CLUSTER_BUS_OFFSET;
    private static final int ATTEMPTS = 100;

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {
    }

    /**
     * A port that is free now and was never handed out before in this JVM.
     *
     * @param withClusterBus whether port + 10000 must be free too (a cluster node's bus)
     */
    static int next(boolean withClusterBus) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int candidate;
            try (ServerSocket socket = new ServerSocket(0)) {
                candidate = socket.getLocalPort();
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Could not find a free port", ex);
            }
            if (withClusterBus && (candidate > HIGHEST_CLUSTER_PORT || !isFree(candidate + CLUSTER_BUS_OFFSET))) {
                continue;
            }
            if (HANDED_OUT.add(candidate)) {
                if (withClusterBus) {
                    HANDED_OUT.add(candidate + CLUSTER_BUS_OFFSET);
                }
                return candidate;
            }
        }
        throw new IllegalStateException("Could not find a free port for redis-server in " + ATTEMPTS + " attempts");
    }

    private static boolean isFree(int port) {
        try (ServerSocket ignored = new ServerSocket(port)) {
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }
}
