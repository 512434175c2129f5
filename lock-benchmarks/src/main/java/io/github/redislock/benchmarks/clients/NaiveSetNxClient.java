package io.github.redislock.benchmarks.clients;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The lock everyone writes first: {@code SET key token NX PX lease}, retried every
 * {@value #RETRY_MILLIS} ms while taken, and a compare-and-delete script to release. Not reentrant,
 * no renewal, no wake-up on release: the floor any library has to beat.
 */
final class NaiveSetNxClient implements LockClient {

    static final long RETRY_MILLIS = 1;

    private static final String RELEASE_SCRIPT = load("naive-release.lua");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String releaseSha;
    private final String clientId = UUID.randomUUID().toString();
    private final long leaseMillis;

    NaiveSetNxClient(LockImplementation.ClientSettings settings) {
        settings.requireStandalone("The naive lock");
        client = RedisClient.create(RedisURI.create(settings.host(), settings.port()));
        connection = client.connect();
        redis = connection.sync();
        releaseSha = redis.scriptLoad(RELEASE_SCRIPT);
        leaseMillis = settings.lease().toMillis();
    }

    static LockImplementation implementation() {
        return new LockImplementation("naive", "naive SET NX PX (Lettuce)", NaiveSetNxClient::new,
                Optional.of("no renewal: the lease is fixed"));
    }

    @Override
    public void lock(String key) {
        String token = token();
        SetArgs args = SetArgs.Builder.nx().px(leaseMillis);
        while (!"OK".equals(redis.set(key, token, args))) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS));
        }
    }

    @Override
    public void unlock(String key) {
        Long deleted = redis.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] {key}, token());
        if (deleted == null || deleted == 0) {
            throw new IllegalMonitorStateException("Naive lock " + key + " was not held by " + token());
        }
    }

    @Override
    public void lockRenewed(String key) {
        throw new UnsupportedOperationException("The naive lock has no renewal");
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }

    private String token() {
        return clientId + ":" + Thread.currentThread().getId();
    }

    private static String load(String resource) {
        try (InputStream in = NaiveSetNxClient.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing script resource " + resource + " beside " + NaiveSetNxClient.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
