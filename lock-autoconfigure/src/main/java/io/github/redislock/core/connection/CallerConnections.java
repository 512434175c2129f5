package io.github.redislock.core.connection;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.SocketOptions;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The blocking lockers' own connection to a standalone Redis, shared by their calling threads: a thread that waits for its reply
 * anyway reads replies itself instead of parking until Lettuce's event loop hands it over (issue 33: the round trip on the
 * event loop costs three thread wake-ups and a system call per command, this one at most one wake-up and, under load, a
 * share of one write and one read; see {@link RespConnection}). One per Locker, opened by the first call and again after
 * one breaks; a call that finds it cannot be opened goes through Lettuce.
 *
 * <p>Only where the factory's own settings say all there is to say: a standalone server over plain TCP with a password, not a
 * Sentinel, Cluster, Unix socket, TLS or credentials provider (those keep Lettuce's path).
 */
public final class CallerConnections implements AutoCloseable {

    /**
     * How long the connection may stay idle and be used without a PING first: less than the shortest {@code timeout} Redis offers
     * (1 s). One the server closed meanwhile (a restart, its {@code timeout}, CLIENT KILL) would fail the next call without telling
     * whether it ran, so it is replaced; one whose PING is not answered in time fails the call as a timeout, within its time.
     */
    public static final Duration IDLE_CHECK = Duration.ofMillis(500);
    /** After a failed connect, how long calls go through Lettuce before this tries again. */
    private static final long RETRY_CONNECT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A thread that waits for a reply anyway (a blocking lock or unlock), which may read it itself. */
    private static final ThreadLocal<Boolean> CALLER_WAITS = new ThreadLocal<>();

    private final LettuceConnectionFactory factory;
    private final Duration connectTimeout;
    private final Duration replyTimeout;
    private volatile RespConnection connection;
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
        if (waits != before && !(waits && Thread.currentThread().getClass().getName().equals("java.lang.VirtualThread"))) { // JDK 17 has none
            CALLER_WAITS.set(waits ? Boolean.TRUE : null);
        }
        return before;
    }

    public static boolean callerWaits() {
        return CALLER_WAITS.get() != null;
    }

    /** Whether the calling thread's last call did not get its reply in time: its next call must go behind it, on the same connection. */
    public boolean owesReply() {
        RespConnection current = connection;
        return current != null && current.owesReply();
    }

    /**
     * Runs one command on the callers' connection, or returns {@link #NOT_SENT} (nothing was sent) when it cannot be opened. A
     * failure after sending (a timeout, a closed connection) throws: the server may or may not have run it.
     */
    public Object call(byte[]... command) {
        try {
            for (int attempt = 0; attempt < 2; attempt++) { // a connection found broken before sending is replaced once
                RespConnection current = !factory.isRunning() ? null : owesReply() ? connection : usable(); // a stopped context's calls fail as Lettuce fails them
                if (current == null) {
                    return NOT_SENT;
                }
                Object reply = current.call(command);
                if (reply != RespConnection.NOT_SENT) {
                    return reply;
                }
            }
            return NOT_SENT;
        } catch (IOException e) { // the connection is gone: nothing on it runs later
            throw new RedisConnectionException(e.getMessage(), e);
        }
    }

    /** What {@link #call} returns when it sent nothing. */
    public static final Object NOT_SENT = new Object();

    /** The open connection, checked with a PING when idle, or a new one; null when none can be opened. */
    private RespConnection usable() {
        RespConnection current = connection;
        if (current != null && !current.isBroken() && System.nanoTime() - current.lastReplyNanos >= IDLE_CHECK.toNanos()) {
            try { // a timeout fails the call: the server is slow, not gone, and a new connection or Lettuce's would wait as long again
                current.call(PING);
            } catch (IOException | RedisCommandExecutionException e) {
                // broken: replaced below
            }
        }
        return current != null && !current.isBroken() ? current : reopen(current);
    }

    private synchronized RespConnection reopen(RespConnection broken) {
        if (connection != broken) { // another thread replaced it meanwhile
            return connection;
        }
        if (closed || System.nanoTime() - noConnectUntil < 0) {
            return null;
        }
        try {
            RespConnection opened = new RespConnection(new InetSocketAddress(factory.getHostName(), factory.getPort()), connectTimeout, replyTimeout);
            handshake(opened);
            connection = opened;
            if (closed) {
                opened.close();
            }
            return opened;
        } catch (IOException | RuntimeException e) {
            noConnectUntil = System.nanoTime() + RETRY_CONNECT_NANOS;
            return null;
        }
    }

    /** What Lettuce says to the server first, as far as the lock scripts need it: who we are and which database. */
    private void handshake(RespConnection connection) throws IOException {
        try {
            String password = factory.getPassword();
            String username = factory.getStandaloneConfiguration().getUsername();
            if (password != null && !password.isEmpty()) {
                connection.call(username == null ? new byte[][] {bytes("AUTH"), bytes(password)} : new byte[][] {bytes("AUTH"), bytes(username), bytes(password)});
            }
            if (factory.getDatabase() != 0) {
                connection.call(bytes("SELECT"), bytes(Integer.toString(factory.getDatabase())));
            }
            if (factory.getClientConfiguration().getClientName().isPresent()) {
                connection.call(bytes("CLIENT"), bytes("SETNAME"), bytes(factory.getClientConfiguration().getClientName().get()));
            }
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private static final byte[] PING = bytes("PING");

    /** Closes the connection: a call on its way fails, and every later one goes through Lettuce. */
    @Override
    public void close() {
        closed = true;
        RespConnection current = connection;
        if (current != null) {
            current.close();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
