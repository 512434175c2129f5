package io.github.redislock.core.connection;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.SocketOptions;

import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The blocking lockers' own connections to a standalone Redis, each used by one calling thread at a time: a thread that waits
 * for its reply anyway reads it itself instead of parking until Lettuce's event loop hands it over (issue 33: the round trip
 * on the event loop costs three thread wake-ups, this one costs one). At most {@link #MAX} are open; a call that finds none
 * free, or none can be opened, goes through Lettuce. Connections idle for {@link #IDLE_CLOSE} are closed.
 *
 * <p>Only where the factory's own settings say all there is to say: a standalone server over plain TCP with a password, not a
 * Sentinel, Cluster, Unix socket, TLS or credentials provider (those keep Lettuce's path).
 */
public final class CallerConnections implements AutoCloseable {

    /** Most connections open at once per Locker: few calls overlap when nothing else is on the shared connection (see ScriptTransport). */
    public static final int MAX = 8;
    static final Duration IDLE_CLOSE = Duration.ofSeconds(30);
    /**
     * How long a connection may stay idle and be used without a PING first: less than the shortest {@code timeout} Redis offers
     * (1 s). One the server closed meanwhile (a restart, its {@code timeout}, CLIENT KILL) would fail the next call without telling
     * whether it ran, so it is replaced; one whose PING is not answered in time leaves the call to Lettuce's connection.
     */
    public static final Duration IDLE_CHECK = Duration.ofMillis(500);
    /** After a failed connect, how long calls go through Lettuce before this tries again. */
    private static final long RETRY_CONNECT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A thread that waits for a reply anyway (a blocking lock or unlock), which may read it itself. */
    private static final ThreadLocal<Boolean> CALLER_WAITS = new ThreadLocal<>();

    private static final Class<?> VIRTUAL = virtualThreads();

    private final LettuceConnectionFactory factory;
    private final Duration connectTimeout;
    private final Duration replyTimeout;
    private final Deque<RespConnection> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger open = new AtomicInteger();
    /** A connection whose reply is owed stays with its thread: that thread's next call must run after the unanswered one. */
    private final ThreadLocal<RespConnection> owedReply = new ThreadLocal<>();
    /** The same connections, for {@link #close()}. */
    private final Set<RespConnection> owing = ConcurrentHashMap.newKeySet();
    private volatile long noConnectUntil;
    private volatile boolean closed;

    private CallerConnections(LettuceConnectionFactory factory, Duration replyTimeout) {
        this.factory = factory;
        this.replyTimeout = replyTimeout;
        this.connectTimeout = factory.getClientConfiguration().getClientOptions().map(ClientOptions::getSocketOptions)
                .map(SocketOptions::getConnectTimeout).orElse(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION);
    }

    /** Connections for the factory's blocking callers, or null where its settings are not all the factory's (see the class comment). */
    public static CallerConnections of(Object factory, Duration replyTimeout) {
        if (factory instanceof LettuceConnectionFactory lettuce && !lettuce.isClusterAware() && !lettuce.isRedisSentinelAware()
                && lettuce.getSocketConfiguration() == null && !lettuce.isUseSsl()
                && lettuce.getClientConfiguration().getRedisCredentialsProviderFactory().isEmpty()) {
            return new CallerConnections(lettuce, replyTimeout);
        }
        return null;
    }

    /**
     * Marks the calling thread as one that waits for its calls' replies while {@code waits}; returns the mark it had. A virtual
     * thread is never marked: an interrupt closes a virtual thread's socket mid-call (a platform thread's it leaves alone), and it
     * parks for Lettuce's reply at no cost to a carrier.
     */
    public static boolean callerWaits(boolean waits) {
        boolean before = CALLER_WAITS.get() != null;
        if (waits != before && !(waits && VIRTUAL.isInstance(Thread.currentThread()))) {
            CALLER_WAITS.set(waits ? Boolean.TRUE : null);
        }
        return before;
    }

    public static boolean callerWaits() {
        return CALLER_WAITS.get() != null;
    }

    /** Whether the calling thread has a connection whose reply it did not get in time: its next call must go there. */
    public boolean owesReply() {
        return owedReply.get() != null;
    }

    /**
     * Runs one command on a connection of the calling thread's, or returns {@link #NOT_SENT} (nothing was sent) when none is free or
     * can be opened. A failure after sending (a timeout, a closed connection) throws: the server may or may not have run it.
     */
    public Object call(byte[]... command) {
        RespConnection connection = owedReply.get();
        if (connection != null) {
            owing.remove(connection);
        } else if ((connection = borrow()) == null) {
            return NOT_SENT;
        }
        try {
            Object reply = connection.call(command);
            owedReply.remove();
            giveBack(connection);
            return reply;
        } catch (RedisCommandTimeoutException e) {
            owedReply.set(connection);
            owing.add(connection);
            throw e;
        } catch (RedisCommandExecutionException e) { // an error reply: the connection is in step
            owedReply.remove();
            giveBack(connection);
            throw e;
        } catch (IOException | RuntimeException e) { // the connection is gone or out of step: nothing on it runs later
            owedReply.remove();
            discard(connection);
            throw e instanceof RuntimeException runtime ? runtime : new RedisConnectionException(e.getMessage(), e);
        }
    }

    /** What {@link #call} returns when it sent nothing. */
    public static final Object NOT_SENT = new Object();

    private RespConnection borrow() {
        if (!factory.isRunning()) { // a stopped context's factory: its calls fail as Lettuce fails them
            return null;
        }
        for (RespConnection connection; (connection = idle.pollFirst()) != null; ) {
            if (System.nanoTime() - connection.idleSinceNanos < IDLE_CHECK.toNanos()) {
                return connection;
            }
            try {
                connection.call(PING);
                return connection;
            } catch (RedisCommandTimeoutException e) { // a slow server, not a closed connection: a new one would wait as long
                discard(connection);
                return null;
            } catch (IOException | RuntimeException e) {
                discard(connection);
            }
        }
        if (closed || System.nanoTime() - noConnectUntil < 0) {
            return null;
        }
        if (open.incrementAndGet() > MAX) {
            open.decrementAndGet();
            return null;
        }
        try {
            RespConnection connection = new RespConnection(new InetSocketAddress(factory.getHostName(), factory.getPort()), connectTimeout, replyTimeout);
            handshake(connection);
            return connection;
        } catch (IOException | RuntimeException e) {
            open.decrementAndGet();
            noConnectUntil = System.nanoTime() + RETRY_CONNECT_NANOS;
            return null;
        }
    }

    /** What Lettuce says to the server first, as far as the lock scripts need it: who we are and which database. */
    private void handshake(RespConnection connection) throws IOException {
        try {
            LettuceClientConfiguration client = factory.getClientConfiguration();
            String password = factory.getPassword();
            String username = factory.getStandaloneConfiguration().getUsername();
            if (password != null && !password.isEmpty()) {
                connection.call(username == null ? new byte[][] {bytes("AUTH"), bytes(password)} : new byte[][] {bytes("AUTH"), bytes(username), bytes(password)});
            }
            if (factory.getDatabase() != 0) {
                connection.call(bytes("SELECT"), bytes(Integer.toString(factory.getDatabase())));
            }
            if (client.getClientName().isPresent()) {
                connection.call(bytes("CLIENT"), bytes("SETNAME"), bytes(client.getClientName().get()));
            }
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private static final byte[] PING = bytes("PING");

    private void giveBack(RespConnection connection) {
        long now = System.nanoTime();
        connection.idleSinceNanos = now;
        idle.offerFirst(connection);
        RespConnection oldest = idle.peekLast();
        if (oldest != null && now - oldest.idleSinceNanos > IDLE_CLOSE.toNanos() && idle.removeLastOccurrence(oldest)) {
            discard(oldest);
        }
        if (closed && idle.remove(connection)) {
            discard(connection);
        }
    }

    private void discard(RespConnection connection) {
        open.decrementAndGet();
        connection.close();
    }

    /** Closes the idle connections, those with an owed reply, and every one given back later. */
    @Override
    public void close() {
        closed = true;
        for (RespConnection connection; (connection = idle.pollFirst()) != null; ) {
            discard(connection);
        }
        owing.forEach(RespConnection::close);
    }

    /** JDK 21's virtual thread class, or a class no thread is (JDK 17). */
    private static Class<?> virtualThreads() {
        try {
            return Class.forName("java.lang.VirtualThread");
        } catch (ClassNotFoundException e) {
            return Void.class;
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
