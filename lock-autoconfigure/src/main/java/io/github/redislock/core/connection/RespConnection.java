package io.github.redislock.core.connection;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;

/**
 * One TCP connection to a Redis server that a calling thread writes a command to and reads its reply from itself (RESP2), in
 * blocking I/O: no event loop between them, and, unlike a channel's, an interrupt does not close it mid-call. Not thread-safe:
 * one caller at a time (see {@link CallerConnections}). A reply that did not come in time is owed: the next command on this
 * connection first reads and drops it, so commands stay in their order on the server, as on Lettuce's one connection.
 */
final class RespConnection implements AutoCloseable {

    private static final byte[] CRLF = {'\r', '\n'};

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final Duration replyTimeout;
    /** Replies of commands sent before that were not read in time; they come first. */
    private int owed;
    long idleSinceNanos;

    RespConnection(InetSocketAddress address, Duration connectTimeout, Duration replyTimeout) throws IOException {
        this.replyTimeout = replyTimeout;
        socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.connect(address, (int) Math.max(1, connectTimeout.toMillis()));
            out = new BufferedOutputStream(socket.getOutputStream(), 1024);
            in = new BufferedInputStream(socket.getInputStream(), 1024);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends one command and reads its reply: Long, byte[], null or a List of them; an error reply throws as Lettuce's would. */
    Object call(byte[]... arguments) throws IOException {
        write(arguments);
        long deadline = System.nanoTime() + replyTimeout.toNanos(); // this command's, as Lettuce times each from its sending
        owed++;
        try {
            for (; owed > 1; owed--) {
                reply(deadline);
            }
            Object reply = reply(deadline);
            owed = 0;
            if (reply instanceof ErrorReply error) {
                throw new RedisCommandExecutionException(error.message);
            }
            return reply;
        } catch (SocketTimeoutException e) {
            throw new RedisCommandTimeoutException("Command timed out after " + replyTimeout);
        }
    }

    private void write(byte[][] arguments) throws IOException {
        header('*', arguments.length);
        for (byte[] argument : arguments) {
            header('$', argument.length);
            out.write(argument);
            out.write(CRLF);
        }
        out.flush();
    }

    private void header(char type, int length) throws IOException {
        out.write(type);
        out.write(Integer.toString(length).getBytes(StandardCharsets.US_ASCII));
        out.write(CRLF);
    }

    private record ErrorReply(String message) {
    }

    /** A whole reply; a timeout before its first byte leaves the connection in step (the reply is owed), one after it does not. */
    private Object reply(long deadline) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException();
        }
        socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
        int type = in.read();
        try {
            return read(type);
        } catch (SocketTimeoutException e) {
            throw new IOException("Redis's reply stopped half-way for " + replyTimeout, e);
        }
    }

    private Object read(int type) throws IOException {
        if (type < 0) {
            throw new EOFException("Connection closed by Redis");
        }
        switch (type) {
            case ':':
                return number();
            case '$': {
                long length = number();
                if (length < 0) {
                    return null;
                }
                byte[] bulk = in.readNBytes((int) length);
                if (bulk.length < length) {
                    throw new EOFException("Connection closed by Redis");
                }
                next();
                next();
                return bulk;
            }
            case '*': {
                long count = number();
                if (count < 0) {
                    return null;
                }
                List<Object> array = new ArrayList<>((int) count);
                for (int i = 0; i < count; i++) {
                    array.add(read(in.read()));
                }
                return array;
            }
            case '+':
                return line().getBytes(StandardCharsets.UTF_8);
            case '-':
                return new ErrorReply(line());
            default:
                throw new IOException("Unexpected reply type '" + (char) type + "' from Redis");
        }
    }

    private long number() throws IOException {
        long value = 0;
        boolean negative = false;
        for (int b; (b = next()) != '\r'; ) {
            if (b == '-') {
                negative = true;
            } else {
                value = value * 10 + (b - '0');
            }
        }
        next();
        return negative ? -value : value;
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b; (b = next()) != '\r'; ) {
            line.append((char) b);
        }
        next();
        return line.toString();
    }

    private int next() throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("Connection closed by Redis");
        }
        return b;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
