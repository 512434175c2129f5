package io.github.redislock.core.script;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Whether a lock's channels (its release channel, a fair lock's turn channels) are sharded ({@code SPUBLISH}/{@code
 * SSUBSCRIBE}: a message stays on the master of the lock's slot instead of crossing the cluster bus) or classic: sharded
 * only on a Redis Cluster reached through Lettuce whose every master knows {@code SPUBLISH} (Redis 7.0+, Valkey). The
 * scripts and the subscriptions of one instance read this one decision; the per-instance inbox is always classic.
 */
public final class ShardedChannels {

    private static final Log log = LogFactory.getLog(ShardedChannels.class);
    public static final byte[] CLASSIC_PUBLISH = "publish".getBytes(StandardCharsets.US_ASCII);
    static final byte[] SPUBLISH = "spublish".getBytes(StandardCharsets.US_ASCII);
    private static final Duration DETECTION_TIMEOUT = Duration.ofSeconds(10);

    private final RedisConnectionFactory connectionFactory;
    /** Asked of the cluster once, as its Locker starts ({@link #learned}) or else by the first script; known at once without a Lettuce cluster client. */
    private volatile Boolean sharded;

    public ShardedChannels(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
        if (!(connectionFactory instanceof LettuceConnectionFactory lettuce) || !lettuce.isClusterAware()) {
            this.sharded = false;
        }
    }

    /** Always classic, for a locker that never reaches Redis. */
    public static ShardedChannels classic() {
        return new ShardedChannels(null);
    }

    /** Asks a cluster now, on the thread that starts a Locker, never on the Redis client's event loop, where the ask waits for replies that loop must read. */
    public ShardedChannels learned() {
        try {
            sharded();
        } catch (RuntimeException e) { // the library starts without Redis
            log.warn("Cannot learn yet how lock release channels publish; asked again by the next lock script: " + ScriptTransport.rootMessage(e));
        }
        return this;
    }

    /**
     * The decision, at once when known, else asked on a blocking-call thread: the caller may be the Redis client's event loop,
     * which must read the replies (a Locker built while the cluster did not answer, asked first from a reactive pipeline).
     */
    public CompletableFuture<Boolean> shardedAsync(String redisKey) {
        Boolean known = sharded;
        return known != null ? CompletableFuture.completedFuture(known)
                : ScriptTransport.started(() -> CompletableFuture.supplyAsync(() -> ScriptTransport.guarded(redisKey, this::sharded), ScriptTransport.BLOCKING_CALLS));
    }

    public boolean known() {
        return sharded != null;
    }

    /** @throws DataAccessResourceFailureException when the cluster cannot be asked */
    public boolean sharded() {
        Boolean known = sharded;
        return known != null ? known : detectOnce();
    }

    private synchronized boolean detectOnce() {
        if (sharded == null) {
            sharded = detect();
            log.info("Lock release channels use " + (sharded ? "sharded pub/sub (SPUBLISH/SSUBSCRIBE)" : "classic pub/sub (PUBLISH/SUBSCRIBE)")
                    + " on this Redis Cluster");
        }
        return sharded;
    }

    /** The cluster client that opens the sharded subscriptions' connection; only when {@link #sharded()}. */
    public RedisClusterClient clusterClient() {
        return (RedisClusterClient) ((LettuceConnectionFactory) connectionFactory).getRequiredNativeClient();
    }

    /** Classic when a master predates sharded pub/sub (Redis 6.2), or an ACL refuses {@code COMMAND INFO}: that works everywhere. */
    private boolean detect() {
        try (RedisConnection connection = connectionFactory.getConnection()) {
            if (!(connection.getNativeConnection() instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)) {
                return false;
            }
            CompletableFuture<List<Object>>[] replies = cluster.masters().commands().commandInfo("spublish").futures();
            CompletableFuture.allOf(replies).get(DETECTION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return Arrays.stream(replies).map(CompletableFuture::join).noneMatch(info -> info.isEmpty() || info.get(0) == null);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            String message = ScriptTransport.rootMessage(e);
            if (message.contains("NOPERM")) {
                log.warn("The Redis user may not run COMMAND INFO, so lock release channels stay classic (PUBLISH/SUBSCRIBE); "
                        + "allow +command|info for sharded pub/sub on Redis 7+: " + message);
                return false;
            }
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new DataAccessResourceFailureException("Cannot ask the cluster within " + DETECTION_TIMEOUT + " whether it knows SPUBLISH: " + message, e);
        }
    }
}
