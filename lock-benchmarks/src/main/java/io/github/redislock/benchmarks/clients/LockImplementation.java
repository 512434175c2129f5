package io.github.redislock.benchmarks.clients;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A lock library under test.
 *
 * @param id                 its name on the command line ({@code --implementations=...})
 * @param displayName        its name in the report, with version and mode
 * @param connector          makes one client instance of it
 * @param renewalUnsupported why it cannot keep a lock alive by itself, or empty when it can
 */
public record LockImplementation(String id, String displayName, Function<ClientSettings, LockClient> connector,
                                 Optional<String> renewalUnsupported) {

    LockImplementation(String id, String displayName, Function<ClientSettings, LockClient> connector) {
        this(id, displayName, connector, Optional.empty());
    }

    /** One client instance: its own connections and client identity, as one application instance has. */
    public LockClient connect(ClientSettings settings) {
        return connector.apply(settings);
    }

    /**
     * @param host            the benchmark's Redis
     * @param port            the benchmark's Redis
     * @param watchdogTimeout lease of a lock kept alive by renewal; renewal runs every third of it
     * @param lease           lease of a lock taken with {@link LockClient#lock} by libraries without a watchdog there
     * @param clusterNodes    {@code host:port} of every master of a Redis Cluster to use instead of {@code host:port}; empty for one server
     */
    public record ClientSettings(String host, int port, Duration watchdogTimeout, Duration lease, List<String> clusterNodes) {

        public ClientSettings(String host, int port, Duration watchdogTimeout, Duration lease) {
            this(host, port, watchdogTimeout, lease, List.of());
        }

        /** The same settings on a Redis Cluster of these masters ({@code host:port} each). */
        public ClientSettings onCluster(List<String> nodes) {
            return new ClientSettings(host, port, watchdogTimeout, lease, List.copyOf(nodes));
        }

        public boolean cluster() {
            return !clusterNodes.isEmpty();
        }

        /** For the clients this harness connects to one server only: a clear failure instead of a silent standalone connection. */
        void requireStandalone(String implementation) {
            if (cluster()) {
                throw new UnsupportedOperationException(implementation + " is connected to one Redis server only in this benchmark, not to a cluster");
            }
        }
    }
}
