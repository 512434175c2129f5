package io.github.redislock.testsupport;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal RESP2 client on one socket, enough for the administrative commands the launcher and the
 * tests send (PING, INFO, CONFIG, CLUSTER, SHUTDOWN, plain reads and writes).
 *
 * <p>Why not Lettuce: the launcher is used by code that must not depend on the client under test (the
 * benchmarks measure several clients; the tests check what the library wrote with a client that
 * shares none of its code), and an admin back door must keep working while the library's client is
 * deliberately broken.
 *
 * <p>Replies: {@link String} for simple and bulk strings, {@link Long} for integers,
 * {@code List<Object>} for arrays, {@code null} for nil, and an error reply as an
 * {@link RedisServerProcess.ErrorReplyException} <em>value</em>, which the caller decides to throw.
 */
final class RespConnection implements Closeable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    RespConnection(String host, int port, Duration connectTimeout, Duration readTimeout) throws IOException {
        socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), (int) connectTimeout.toMillis());
            socket.setSoTimeout((int) readTimeout.toMillis());
            socket.setTcpNoDelay(true);
            out = new BufferedOutputStream(socket.getOutputStream());
            in = new BufferedInputStream(socket.getInputStream());
        }
        catch (IOException ex) {
            socket.close();
            throw ex;
        }
    }

    /** Sends one command and reads its reply. */
    Object call(String... args) throws IOException {
        send(args);
        return read();
    }

    /** Writes one command as a RESP array of bulk strings. */
    void send(String... args) throws IOException {
        out.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            out.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.write(bytes);
            out.write('\r');
            out.write('\n');
        }
        out.flush();
    }

    /** Reads one reply. */
    Object read() throws IOException {
        int type = in.read();
        if (type == -1) {
            throw new EOFException("redis-server closed the connection");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new RedisServerProcess.ErrorReplyException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("Truncated bulk string from redis-server");
                }
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("Unexpected RESP reply type '" + (char) type + "' followed by: " + line);
        }
    }

    /**
     * The {@code key:value} lines of an {@code INFO} reply in order, section headers and blank lines
     * skipped.
     */
    static Map<String, String> infoFields(String text) {
        Map<String, String> result = new LinkedHashMap<>();
        for (String line : text.split("\r?\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                result.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return Collections.unmodifiableMap(result);
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b == -1) {
                throw new EOFException("redis-server closed the connection mid-reply");
            }
            if (b == '\r') {
                int next = in.read();
                if (next == '\n') {
                    return buffer.toString(StandardCharsets.UTF_8);
                }
                buffer.write(b);
                if (next == -1) {
                    throw new EOFException("redis-server closed the connection mid-reply");
                }
                buffer.write(next);
                continue;
            }
            buffer.write(b);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
