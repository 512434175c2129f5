package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ScriptTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;

/**
 * What the classic and the sharded subscription share: the confirmations their callers wait for, each
 * completed by Redis's own confirmation of its channel and bounded by the client's command timeout.
 * They differ only in how they send.
 */
abstract class PubSubConnection implements ChannelSubscriber.Subscription {

    final ChannelSubscriber.Listener listener;
    /** How long Redis may take to confirm a subscribe: the client's command timeout. */
    final Duration timeout;
    /** Confirmations not yet received, by channel name, shared by everyone who subscribes a channel meanwhile. */
    private final Map<String, CompletableFuture<Void>> unconfirmed = new ConcurrentHashMap<>();
    /** Whether Redis confirmed anything on it: it was open. */
    volatile boolean confirmedOnce;

    PubSubConnection(ChannelSubscriber.Listener listener, Duration timeout) {
        this.listener = listener;
        this.timeout = timeout;
    }

    /** Sends the subscribe of {@code channel}; a failure to send fails its confirmation, see {@link #failed}. */
    abstract void send(byte[] channel);

    @Override
    public final CompletableFuture<Void> subscribe(byte[] channel) {
        CompletableFuture<Void> confirmation = expect(channel);
        send(channel);
        return bounded(confirmation, timeout, "SUBSCRIBE of " + name(channel));
    }

    private CompletableFuture<Void> expect(byte[] channel) {
        return unconfirmed.compute(name(channel), (name, pending) -> pending == null || pending.isDone() ? new CompletableFuture<>() : pending);
    }

    /** Subscribes the inbox and {@code channels} by {@code send}: completes with this subscription once Redis confirmed them all, or closes it. */
    final CompletableFuture<ChannelSubscriber.Subscription> open(byte[] inbox, List<byte[]> channels, Duration bound, Consumer<List<byte[]>> send) {
        List<byte[]> names = new ArrayList<>(channels);
        names.add(0, inbox);
        CompletableFuture<?>[] confirmations = names.stream().map(this::expect).toArray(CompletableFuture[]::new);
        send.accept(names);
        return bounded(CompletableFuture.allOf(confirmations), bound, "SUBSCRIBE").handle((done, failure) -> {
            if (failure != null) {
                close();
                throw (RuntimeException) failure;
            }
            return this;
        });
    }

    /** On the client's event loop: the listener hears of it before the joins it confirms complete. */
    final void confirmed(byte[] channel) {
        confirmedOnce = true;
        listener.subscribed(channel);
        CompletableFuture<Void> confirmation = unconfirmed.remove(name(channel));
        if (confirmation != null) {
            confirmation.complete(null);
        }
    }

    final void failed(List<byte[]> channels, Throwable failure) {
        for (byte[] channel : channels) {
            CompletableFuture<Void> confirmation = unconfirmed.get(name(channel));
            if (confirmation != null) {
                confirmation.completeExceptionally(failure("SUBSCRIBE of " + name(channel), failure));
            }
        }
    }

    /** No confirmation still awaited will come. */
    final void failAll() {
        DataAccessException closed = new DataAccessResourceFailureException("The pub/sub connection is closed");
        unconfirmed.values().forEach(confirmation -> confirmation.completeExceptionally(closed));
        unconfirmed.clear();
    }

    /** {@code future}, failing with a {@link DataAccessException} that names {@code what} when it fails or takes longer than {@code bound}. */
    static <T> CompletableFuture<T> bounded(CompletableFuture<T> future, Duration bound, String what) {
        return future.copy().orTimeout(bound.toNanos(), TimeUnit.NANOSECONDS).handle((done, failure) -> {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (cause instanceof TimeoutException) {
                throw new QueryTimeoutException("Redis did not confirm the " + what + " within " + bound);
            }
            if (cause != null) {
                throw cause instanceof DataAccessException known ? known : failure(what, cause);
            }
            return done;
        });
    }

    static DataAccessResourceFailureException failure(String what, Throwable cause) {
        return new DataAccessResourceFailureException("Pub/sub " + what + " failed: " + ScriptTransport.rootMessage(cause), cause);
    }

    /** Threads of the subscriptions, which never keep the JVM alive. */
    static ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    static String name(byte[] channel) {
        return new String(channel, StandardCharsets.UTF_8);
    }
}
