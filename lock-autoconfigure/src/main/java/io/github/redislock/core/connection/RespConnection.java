package io.github.redislock.core.connection;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
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
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;

/**
 * One TCP connection to a Redis server that any number of calling threads share, each writing its command and waiting for its
 * own reply (RESP2), in blocking I/O with no event loop between them (issue 33). Commands that arrive while another thread
 * writes go out with its write, in one system call; one waiting thread at a time reads, hands each reply it reads to its
 * thread and wakes it, and when its own has come passes the reading on. Redis answers a connection's commands in their order,
 * so the replies come in the order the commands went out, and a thread's next command always runs after its last, answered in
 * time or not. Unlike a channel's, a platform thread's interrupt does not close it mid-call.
 */
final class RespConnection implements AutoCloseable {

    private static final byte[] CRLF = {'\r', '\n'};
    /** What {@link #call} returns for a command it never sent: the connection had broken. */
    static final Object NOT_SENT = new Object();

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final Duration replyTimeout;
    private final ByteArrayOutputStream batch = new ByteArrayOutputStream(1024);
    private final ReentrantLock writing = new ReentrantLock();
    private final AtomicBoolean reading = new AtomicBoolean();
    private final Queue<Call> unsent = new ConcurrentLinkedQueue<>();
    /** Commands written, in their order on the wire: the next reply is the first one's. */
    private final Queue<Call> unanswered = new ConcurrentLinkedQueue<>();
    /** The calling thread's last command if it is not answered yet: a reply that did not come in time. */
    private final ThreadLocal<Call> late = new ThreadLocal<>();
    private volatile IOException broken;
    /** When the write on its way began, or 0. A socket write has no timeout: one to a server that stopped reading blocks once the buffers fill. */
    private volatile long writingSince;
    volatile long lastReplyNanos = System.nanoTime();

    /** One command and, once {@link #answered}, its reply (an {@link ErrorReply} or {@link IOException} for a failure). */
    private static final class Call {
        final byte[][] arguments;
        final Thread caller = Thread.currentThread();
        volatile boolean answered;
        /** Its caller waits no more (its time ran out): a reading thread passes the reading on to another. */
        volatile boolean abandoned;
        Object reply;

        Call(byte[][] arguments) {
            this.arguments = arguments;
        }
    }

    RespConnection(InetSocketAddress address, Duration connectTimeout, Duration replyTimeout) throws IOException {
        this.replyTimeout = replyTimeout;
        socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.connect(address, (int) Math.max(1, connectTimeout.toMillis()));
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream(), 16384);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
        checkWrites();
    }

    /** Every quarter of the reply timeout until it breaks, breaks off the connection if a write has blocked longer than that timeout. */
    private void checkWrites() {
        long since = writingSince;
        if (since != 0 && System.nanoTime() - since > replyTimeout.toNanos()) {
            breakOff(new IOException("Redis took no write for " + replyTimeout + " (it stopped reading)"));
        } else if (broken == null) {
            CompletableFuture.delayedExecutor(replyTimeout.toNanos() / 4, TimeUnit.NANOSECONDS, Runnable::run).execute(this::checkWrites);
        }
    }

    /**
     * Sends one command and waits for its reply: Long, byte[], null or a List of them; an error reply throws as Lettuce's would,
     * as does a reply that did not come in time (it stays owed, see {@link #owesReply}). {@link #NOT_SENT} when the connection had
     * broken before the command went out; an {@link IOException} when it broke after (Redis may or may not have run it).
     */
    Object call(byte[]... arguments) throws IOException {
        Call call = new Call(arguments);
        long deadline = System.nanoTime() + replyTimeout.toNanos(); // this command's, as Lettuce times each from its sending
        unsent.add(call);
        flush();
        boolean interrupted = false;
        try {
            while (!call.answered) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    call.abandoned = true;
                    late.set(call);
                    passReading();
                    throw new RedisCommandTimeoutException("Command timed out after " + replyTimeout);
                }
                if (reading.compareAndSet(false, true)) {
                    try {
                        readUntilAnswered(call, deadline);
                    } finally {
                        reading.set(false);
                    }
                    passReading();
                } else {
                    LockSupport.parkNanos(this, left);
                    interrupted |= Thread.interrupted(); // kept for the caller: a parked thread's interrupt would end every park at once
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        late.remove();
        if (call.reply instanceof ErrorReply error) {
            throw new RedisCommandExecutionException(error.message);
        }
        if (call.reply instanceof IOException failure) {
            throw failure;
        }
        return call.reply;
    }

    /** Whether the calling thread's last command is not answered yet: its next must go after it, on this connection. */
    boolean owesReply() {
        Call owed = late.get();
        return owed != null && !owed.answered;
    }

    boolean isBroken() {
        return broken != null;
    }

    /**
     * Writes every unsent command, in one write per turn. A thread that finds another writing leaves its command to it: the
     * writer looks again after each turn, so a command added while it held the lock goes out with its next one.
     */
    private void flush() {
        while (!unsent.isEmpty() && writing.tryLock()) {
            try {
                batch.reset();
                for (Call call; (call = unsent.poll()) != null; ) {
                    if (broken != null) {
                        answer(call, NOT_SENT);
                    } else {
                        write(call.arguments);
                        unanswered.add(call);
                    }
                }
                if (batch.size() > 0) {
                    writingSince = System.nanoTime();
                    batch.writeTo(out);
                    writingSince = 0;
                }
            } catch (IOException e) {
                breakOff(e);
            } finally {
                writing.unlock();
            }
            if (broken != null) {
                failUnanswered(); // those this turn added after a reading thread broke off
            } else {
                passReading();
            }
        }
    }

    /** Reads replies, each to its command's thread, until this call's came, its time ran out or the connection broke. */
    private void readUntilAnswered(Call call, long deadline) {
        try {
            while (!call.answered) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
                int type;
                try {
                    type = in.read();
                } catch (SocketTimeoutException e) { // before a reply's first byte: still in step
                    return;
                }
                Object reply;
                try {
                    reply = read(type);
                } catch (SocketTimeoutException e) {
                    throw new IOException("Redis's reply stopped half-way for " + replyTimeout, e);
                }
                Call first = unanswered.poll();
                if (first == null) {
                    throw new IOException("A reply from Redis to no command");
                }
                lastReplyNanos = System.nanoTime();
                answer(first, reply);
            }
        } catch (IOException e) {
            breakOff(e);
        }
    }

    /**
     * Unless a thread reads already, wakes the first thread still waiting for a written command to read next; not this thread,
     * which reads next itself if it waits (a permit of its own left over would cut its next park elsewhere short).
     */
    private void passReading() {
        if (reading.get()) {
            return;
        }
        for (Call waiting : unanswered) {
            if (!waiting.abandoned) {
                if (waiting.caller != Thread.currentThread()) {
                    LockSupport.unpark(waiting.caller);
                }
                return;
            }
        }
    }

    private void answer(Call call, Object reply) {
        call.reply = reply;
        call.answered = true;
        if (call.caller != Thread.currentThread() && !call.abandoned) {
            LockSupport.unpark(call.caller);
        }
    }

    /** Closes the connection for good: every command written and not answered fails (it may have run), every later one is not sent. */
    private void breakOff(IOException cause) {
        if (broken == null) {
            broken = cause;
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        failUnanswered();
    }

    private void failUnanswered() {
        for (Call call; (call = unanswered.poll()) != null; ) {
            answer(call, broken);
        }
    }

    private void write(byte[][] arguments) {
        header('*', arguments.length);
        for (byte[] argument : arguments) {
            header('$', argument.length);
            batch.writeBytes(argument);
            batch.writeBytes(CRLF);
        }
    }

    private void header(char type, int length) {
        batch.write(type);
        batch.writeBytes(Integer.toString(length).getBytes(StandardCharsets.US_ASCII));
        batch.writeBytes(CRLF);
    }

    private record ErrorReply(String message) {
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
                byte[] bulk = in.readNBytes((int) length); // short only at the end of the stream, where next() throws
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

    /** Closes the connection: every command on its way fails (it may have run), and every later one is not sent. */
    @Override
    public void close() {
        breakOff(new EOFException("Connection to Redis closed by the Locker"));
    }
}
