package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.core.connection.CallerConnections;
import io.github.redislock.testsupport.RedisServerProcess;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The blocking callers' one connection, shared by every calling thread of a Locker (issue 33): each thread gets its own reply
 * however the calls interleave, a reply that came too late goes to the call it answers, a thread waiting behind one that gave
 * up reads on, and a connection that breaks or closes fails the calls on it at once instead of at their timeout.
 */
class SharedCallerConnectionTest {

    private static final Duration SHORT = Duration.ofMillis(400);

    @Test
    void everyThreadGetsItsOwnReplyWhenSixteenThreadsShareTheConnection() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start(); Callers callers = new Callers(redis, Duration.ofSeconds(5))) {
            AtomicInteger wrong = new AtomicInteger();
            ExecutorService threads = Executors.newFixedThreadPool(16);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    int thread = t;
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < 300; i++) {
                            String sent = thread + ":" + i;
                            if (!sent.equals(echo(callers.connections, sent))) {
                                wrong.incrementAndGet();
                            }
                        }
                    }));
                }
                for (Future<?> thread : done) {
                    thread.get(30, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }

            assertThat(wrong).as("replies that were another call's").hasValue(0);
            assertThat(CallerConnectionsTest.clientsWhoseLastCommandWas(redis, "eval")).as("connections that carried the 4,800 calls").hasSize(1);
        }
    }

    @Test
    void aThreadWaitingBehindOneThatGaveUpReadsItsOwnReplyInTime() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start(); Callers callers = new Callers(redis, SHORT)) {
            echo(callers.connections, "opened");
            redis.pause();
            CompletableFuture<Object> first = CompletableFuture.supplyAsync(() -> echo(callers.connections, "first"));
            Thread.sleep(SHORT.toMillis() / 2); // not a wait for anything: the second call's time runs out half a timeout later
            CompletableFuture<Object> second = CompletableFuture.supplyAsync(() -> echo(callers.connections, "second"));

            assertThatThrownBy(() -> first.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(RedisCommandTimeoutException.class);
            redis.resume();

            assertThat(second.get(5, TimeUnit.SECONDS)).as("its own reply, not the first call's late one").isEqualTo("second");
            assertThat(echo(callers.connections, "third")).isEqualTo("third");
        }
    }

    @Test
    void callsOnTheirWayFailAtOnceWhenTheServerDropsTheConnectionAndTheNextOneReconnects() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start(); Callers callers = new Callers(redis, Duration.ofSeconds(30))) {
            assertCallsOnTheirWayFailLongBeforeTheirTimeout(redis, callers, redis::kill);

            redis.restart();
            assertThat(echo(callers.connections, "after-the-restart")).isEqualTo("after-the-restart");
        }
    }

    @Test
    void closingTheConnectionsFailsTheCallsOnTheirWayAtOnce() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start(); Callers callers = new Callers(redis, Duration.ofSeconds(30))) {
            try {
                assertCallsOnTheirWayFailLongBeforeTheirTimeout(redis, callers, callers.connections::close);

                assertThat(callers.connections.call(bytes("PING"))).as("a call after the close").isSameAs(CallerConnections.NOT_SENT);
            } finally {
                redis.resume();
            }
        }
    }

    @Test
    void anInterruptWhileWaitingIsKeptAndTheReplyStillComes() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start(); Callers callers = new Callers(redis, Duration.ofSeconds(5))) {
            echo(callers.connections, "opened");
            redis.pause();
            List<CompletableFuture<Object>> onTheirWay = new ArrayList<>();
            List<Thread> threads = onTheirWay(callers, 2, onTheirWay);

            threads.forEach(Thread::interrupt);
            redis.resume();

            for (int i = 0; i < 2; i++) {
                assertThat(onTheirWay.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(List.of("on-its-way-" + i, true));
            }
        }
    }

    /**
     * Starts {@code count} threads that each send a call and complete their future with its reply and whether the thread was
     * interrupted afterwards; returns once all but one park: a thread parks only with its call written and another thread reading.
     */
    private static List<Thread> onTheirWay(Callers callers, int count, List<CompletableFuture<Object>> replies) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String sent = "on-its-way-" + i;
            CompletableFuture<Object> reply = new CompletableFuture<>();
            replies.add(reply);
            Thread thread = new Thread(() -> {
                try {
                    Object answer = echo(callers.connections, sent);
                    reply.complete(List.of(answer, Thread.currentThread().isInterrupted()));
                } catch (RuntimeException e) {
                    reply.completeExceptionally(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        while (threads.stream().filter(thread -> thread.getState() == Thread.State.TIMED_WAITING).count() < count - 1) {
            Thread.onSpinWait();
        }
        return threads;
    }

    /** Pauses the server, sends 3 calls with a timeout of 30 s, breaks the connection and checks they all failed within 10 s. */
    private static void assertCallsOnTheirWayFailLongBeforeTheirTimeout(RedisServerProcess redis, Callers callers, Runnable breaking) {
        echo(callers.connections, "opened");
        redis.pause();
        List<CompletableFuture<Object>> calls = new ArrayList<>();
        onTheirWay(callers, 3, calls);

        breaking.run();

        for (CompletableFuture<Object> call : calls) {
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).as("failed long before its 30 s timeout")
                    .hasCauseInstanceOf(RedisConnectionException.class);
        }
    }

    /** EVAL of a script that returns its one argument, on the callers' connection. */
    private static Object echo(CallerConnections connections, String value) {
        Object reply = connections.call(bytes("EVAL"), bytes("return ARGV[1]"), bytes("0"), bytes(value));
        return reply instanceof byte[] text ? new String(text, StandardCharsets.UTF_8) : reply;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A started factory and its callers' connections, both closed at the end. */
    private static final class Callers implements AutoCloseable {
        final LettuceConnectionFactory factory;
        final CallerConnections connections;

        Callers(RedisServerProcess redis, Duration replyTimeout) {
            factory = LockerFixture.startedLettuce(redis.host(), redis.port(), replyTimeout);
            connections = CallerConnections.of(factory, replyTimeout);
        }

        @Override
        public void close() {
            connections.close();
            factory.destroy();
        }
    }
}
