package io.github.redislock.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A TCP proxy on the loopback interface between lock clients and Redis, for connection faults that a
 * real network has and a local Redis never shows: every connection dropped at once, new connections
 * refused, latency beyond the client's command timeout. {@link #heal()} ends them all.
 *
 * <p>Latency is added per chunk in each direction without slowing the throughput: a reader stamps
 * each chunk with its due time and a writer sends it when due, in order.
 */
final class FaultProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile long latencyMillis;
    /** Added to {@link #latencyMillis} on the way back from Redis, on the connections open before {@link #delayReplies}. */
    private volatile long replyLatencyMillis;
    private volatile int repliesDelayedBelow;
    /** Added to {@link #latencyMillis} on the way back from Redis, on the connections opened after {@link #delayRepliesOfNewConnections}. */
    private volatile long newConnectionReplyLatencyMillis;
    private volatile int repliesDelayedFrom = Integer.MAX_VALUE;
    private volatile int accepted;
    /** Closed while replies are held ({@link #holdReplies()}, {@link #holdRepliesAfterScriptCalls()}); {@link #releaseReplies()} opens it. */
    private volatile CountDownLatch repliesHeld = new CountDownLatch(0);
    private volatile boolean holdingAllReplies;
    private volatile boolean holdingRepliesAfterScriptCalls;
    /** The connections that sent a script call since {@link #holdRepliesAfterScriptCalls()}: their replies are held. */
    private final Set<Integer> connectionsHeld = ConcurrentHashMap.newKeySet();
    private volatile boolean refusing;
    private volatile boolean closed;

    FaultProxy(int targetPort) {
        this.targetPort = targetPort;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the fault proxy's port", e);
        }
        daemon("fault-proxy-accept", this::acceptLoop).start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Closes every open connection and refuses new ones until {@link #heal()}. */
    void dropAllAndRefuse() {
        refusing = true;
        sockets.forEach(FaultProxy::closeQuietly);
        sockets.clear();
    }

    /** Delays every chunk, both ways, by {@code millis} from now on. */
    void delay(long millis) {
        latencyMillis = millis;
    }

    /**
     * Delays every chunk from Redis on the connections open now by {@code millis}: their commands still run
     * at once, only the replies are late. Connections opened later (a client replacing a broken one) are not slowed.
     */
    void delayReplies(long millis) {
        repliesDelayedBelow = accepted;
        replyLatencyMillis = millis;
    }

    /** Delays every chunk from Redis on the connections opened from now on (a pub/sub connection, say) by {@code millis}. */
    void delayRepliesOfNewConnections(long millis) {
        repliesDelayedFrom = accepted;
        newConnectionReplyLatencyMillis = millis;
    }

    /**
     * Keeps every chunk from Redis back, on every connection, until {@link #releaseReplies()}: commands still
     * run at once, and no reply reaches a client meanwhile, however long the test takes to act in that window.
     */
    void holdReplies() {
        repliesHeld = new CountDownLatch(1);
        holdingAllReplies = true;
    }

    /**
     * Keeps back, until {@link #releaseReplies()}, every chunk from Redis on each connection from the moment it
     * sends a script call ({@code EVALSHA}, {@code EVAL}): a lock attempt's reply is held, while what a client
     * must hear back before it sends the attempt (a new pooled connection's handshake, a SUBSCRIBE) still passes.
     */
    void holdRepliesAfterScriptCalls() {
        repliesHeld = new CountDownLatch(1);
        holdingRepliesAfterScriptCalls = true;
    }

    /** Delivers the replies held back, in order, and lets later ones through. */
    void releaseReplies() {
        holdingAllReplies = false;
        holdingRepliesAfterScriptCalls = false;
        connectionsHeld.clear();
        repliesHeld.countDown();
    }

    /** Accepts connections again and stops delaying or holding; chunks still delayed are delivered at once. */
    void heal() {
        releaseReplies();
        refusing = false;
        latencyMillis = 0;
        replyLatencyMillis = 0;
        newConnectionReplyLatencyMillis = 0;
    }

    int openConnections() {
        return sockets.size() / 2;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (refusing) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                int connection = accepted++;
                pipe(client, upstream, "fault-proxy-up", () -> 0, connection, false);
                pipe(upstream, client, "fault-proxy-down", () -> connection < repliesDelayedBelow ? replyLatencyMillis
                        : connection >= repliesDelayedFrom ? newConnectionReplyLatencyMillis : 0, connection, true);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    /**
     * @param extraLatency latency of this direction on top of {@link #latencyMillis}, in millis
     * @param connection the connection's number, in the order accepted
     * @param replies whether this direction carries Redis's replies, which may be held back, else the client's commands
     */
    private void pipe(Socket from, Socket to, String name, LongSupplier extraLatency, int connection, boolean replies) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
        daemon(name + "-read", () -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    long latency = latencyMillis + extraLatency.getAsLong();
                    if (!replies && holdingRepliesAfterScriptCalls && isScriptCall(buffer, read)) {
                        connectionsHeld.add(connection); // before the call goes on to Redis, so before its reply comes back
                    }
                    chunks.put(new Chunk(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(latency), Arrays.copyOf(buffer, read)));
                }
            } catch (IOException | InterruptedException e) {
                // connection dropped
            }
            chunks.add(Chunk.END);
            closeBoth(from, to);
        }).start();
        daemon(name + "-write", () -> {
            try {
                while (true) {
                    Chunk chunk = chunks.take();
                    if (chunk == Chunk.END) {
                        break;
                    }
                    while (latencyMillis + extraLatency.getAsLong() > 0 && chunk.dueNanos - System.nanoTime() > 0) { // healing delivers what is still delayed at once
                        TimeUnit.NANOSECONDS.sleep(Math.min(chunk.dueNanos - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(5)));
                    }
                    if (replies && (holdingAllReplies || connectionsHeld.contains(connection))) {
                        repliesHeld.await();
                    }
                    out.write(chunk.bytes);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // connection dropped
            }
            closeBoth(from, to);
        }).start();
    }

    /** Whether a chunk of commands holds a script call: RESP spells each command name in full, as a bulk string. */
    private static boolean isScriptCall(byte[] buffer, int length) {
        String commands = new String(buffer, 0, length, StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
        return commands.contains("\r\nEVALSHA\r\n") || commands.contains("\r\nEVAL\r\n");
    }

    private void closeBoth(Socket a, Socket b) {
        closeQuietly(a);
        closeQuietly(b);
        sockets.remove(a);
        sockets.remove(b);
    }

    @Override
    public void close() {
        closed = true;
        releaseReplies();
        closeQuietly(server);
        sockets.forEach(FaultProxy::closeQuietly);
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // already closed
        }
    }

    private record Chunk(long dueNanos, byte[] bytes) {
        static final Chunk END = new Chunk(0, new byte[0]);
    }
}
