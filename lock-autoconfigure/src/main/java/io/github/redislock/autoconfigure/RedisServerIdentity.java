package io.github.redislock.autoconfigure;

import java.util.Locale;
import java.util.Map;

/**
 * What a server says it is: its kind ({@code redis}, {@code valkey}, or whatever else speaks the
 * protocol) and the version of that kind.
 *
 * <p>Why the kind: Valkey forked from Redis 7.2.4 and numbers its own releases, so a version alone
 * means nothing. Valkey 8.0.1 answers {@code HELLO} with {@code server=valkey, version=8.0.1} and
 * {@code INFO server} with {@code redis_version:7.2.4} (the Redis it is compatible with) beside
 * {@code valkey_version:8.0.1}; comparing its 8.0.1 with a Redis version would be comparing two
 * different numberings.
 *
 * @param kind lower case, e.g. {@code redis} or {@code valkey}
 * @param version the kind's own version, e.g. {@code 8.0.1}
 */
record RedisServerIdentity(String kind, String version) {

    static final String REDIS = "redis";
    static final String VALKEY = "valkey";

    RedisServerIdentity {
        kind = kind.toLowerCase(Locale.ROOT);
    }

    /**
     * From the fields of a {@code HELLO} reply ({@code server}, {@code version}).
     *
     * @throws IllegalStateException if the reply has no {@code version}
     */
    static RedisServerIdentity fromHello(Map<String, String> hello) {
        String version = hello.get("version");
        if (version == null) {
            throw new IllegalStateException("the HELLO reply has no version: " + hello);
        }
        String server = hello.get("server");
        return new RedisServerIdentity(server == null || server.isBlank() ? REDIS : server, version);
    }

    /**
     * From the fields of {@code INFO server}: Valkey's {@code valkey_version} when present (its
     * {@code redis_version} is the Redis it is compatible with), else {@code redis_version}.
     *
     * @throws IllegalStateException if neither is present
     */
    static RedisServerIdentity fromInfo(Map<String, String> info) {
        String valkeyVersion = info.get("valkey_version");
        if (valkeyVersion != null) {
            return new RedisServerIdentity(VALKEY, valkeyVersion);
        }
        String redisVersion = info.get("redis_version");
        if (redisVersion == null) {
            throw new IllegalStateException("the server's INFO server has neither valkey_version nor redis_version");
        }
        String serverName = info.get("server_name");
        return new RedisServerIdentity(serverName == null || serverName.isBlank() ? REDIS : serverName, redisVersion);
    }

    /** As messages name it: {@code Redis 7.0.15}, {@code Valkey 8.0.1}. */
    @Override
    public String toString() {
        String name = switch (kind) {
            case REDIS -> "Redis";
            case VALKEY -> "Valkey";
            default -> kind;
        };
        return name + " " + version;
    }
}
