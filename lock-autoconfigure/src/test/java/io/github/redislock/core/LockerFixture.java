package io.github.redislock.core;

import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.ReactiveLocker;

import io.github.redislock.LockLostEvent;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;


import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** One application instance's worth of redis-lock, wired by hand on a real Redis: what the auto-configuration builds. Public for the reliability suite. */
public final class LockerFixture implements AutoCloseable {

    public static final String PREFIX = "lock:";

    /**
     * A watchdog timeout for the waiting instance of a wake-up test. A waiter looks at a held lock again
     * on its own only every watchdog-timeout / 9 (a queued waiter refreshing its place: 3.3 s here) or
     * when the holder's lease ends, so a waiter of such an instance that gets a long-leased lock within
     * {@link #WOKEN_WITHIN} of its release was woken by a message, not by its own retry. With a 1 s
     * timeout it retries every 111 ms, and any wake-up limit would pass with the messages gone.
     */
    public static final Duration SLOW_RETRIES = Duration.ofSeconds(30);

    /** How soon after the release a woken waiter must hold the lock: well inside the {@link #SLOW_RETRIES} retry period. */
    public static final Duration WOKEN_WITHIN = Duration.ofMillis(1500);

    /**
     * The test-scope switch between the two paths of a blocking call on standalone Lettuce: false when the JVM runs with
     * {@code -D}{@value #CALLER_CONNECTIONS_PROPERTY}{@code =false}, as the {@code shared-connection} surefire execution
     * does, and then every Locker this fixture builds, and every application a class started with
     * {@link #CALLER_CONNECTIONS_SETTING}, sends its blocking calls on Lettuce's shared connection as a
     * Sentinel, Cluster or TLS application, or one with {@code redis-lock.caller-connections=false}, does. Why: the
     * reliability suite mostly drives the blocking Locker on standalone Lettuce, which takes caller connections by
     * default, so without a second run the shared path would lose its fault, restart and timeout coverage.
     * Not Spring's own property: set JVM-wide, that would also fail the startup of every Redlock application.
     */
    public static final String CALLER_CONNECTIONS_PROPERTY = "redislock.test.caller-connections";

    /** This JVM's path: see {@link #CALLER_CONNECTIONS_PROPERTY}. */
    public static final boolean CALLER_CONNECTIONS = callerConnectionsOfThisJvm();

    /** The application property that puts a started application on this JVM's path; see {@link #CALLER_CONNECTIONS_PROPERTY}. */
    public static final String CALLER_CONNECTIONS_SETTING = "redis-lock.caller-connections=" + CALLER_CONNECTIONS;

    private static boolean callerConnectionsOfThisJvm() {
        String value = System.getProperty(CALLER_CONNECTIONS_PROPERTY, "true").trim();
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalStateException(CALLER_CONNECTIONS_PROPERTY + " must be true or false, not '" + value + "'");
        }
        return Boolean.parseBoolean(value);
    }

    /** Lettuce's, or Jedis's for {@link #connectJedis}. */
    public final RedisConnectionFactory connectionFactory;
    public final LockCommands commands;
    final LockWatchdog watchdog;
    final ReleaseSubscriptions subscriptions;
    public final RedisLocker locker;
    /** The same instance's locks for callers that wait without a thread. */
    public final RedisAsyncLocker async;
    public final ReactiveLocker reactive;
    public final StringRedisTemplate redis;
    public final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();

    private LockerFixture(RedisConnectionFactory connectionFactory, Duration watchdogTimeout, Duration replicaSync) {
        this(connectionFactory, watchdogTimeout, replicaSync, CALLER_CONNECTIONS);
    }

    private LockerFixture(RedisConnectionFactory connectionFactory, Duration watchdogTimeout, Duration replicaSync, boolean callerConnections) {
        this.connectionFactory = connectionFactory;
        this.locker = RedisLocker.builder(connectionFactory).keyPrefix(PREFIX).watchdogTimeout(watchdogTimeout).replicaSync(replicaSync)
                .callerConnections(callerConnections)
                .events(event -> {
                    if (event instanceof LockLostEvent lost) {
                        lostEvents.add(lost);
                    }
                }).build();
        this.commands = locker.commands;
        this.watchdog = locker.watchdog;
        this.subscriptions = locker.subscriptions;
        this.async = new RedisAsyncLocker(locker);
        this.reactive = new RedisReactiveLocker(async);
        this.redis = new StringRedisTemplate(connectionFactory);
    }

    public static LockerFixture connect(String host, int port, Duration watchdogTimeout) {
        return connect(host, port, watchdogTimeout, Duration.ofSeconds(5));
    }

    public static LockerFixture connect(String host, int port, Duration watchdogTimeout, Duration commandTimeout) {
        return connect(host, port, watchdogTimeout, commandTimeout, null);
    }

    /** @param replicaSync {@code redis-lock.replica-sync}; null = off */
    public static LockerFixture connect(String host, int port, Duration watchdogTimeout, Duration commandTimeout, Duration replicaSync) {
        return new LockerFixture(startedLettuce(host, port, commandTimeout), watchdogTimeout, replicaSync);
    }

    /** An instance whose blocking calls, too, go on Lettuce's shared connection ({@code redis-lock.caller-connections=false}). */
    public static LockerFixture connectSharedOnly(String host, int port, Duration watchdogTimeout, Duration commandTimeout) {
        return new LockerFixture(startedLettuce(host, port, commandTimeout), watchdogTimeout, null, false);
    }

    /** A started Lettuce connection factory on one Redis, for a test that builds its own locker; the test destroys it. */
    public static LettuceConnectionFactory startedLettuce(String host, int port, Duration commandTimeout) {
        LettuceClientConfiguration client = LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port), client);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    /**
     * A started Lettuce factory that logs in as the ACL user "locker", created here with every right: a test then narrows
     * its keys ({@code ACL SETUSER locker resetkeys ~...}) to make some of a Locker's calls fail and others succeed.
     */
    public static LettuceConnectionFactory startedLettuceAsAclUser(io.github.redislock.testsupport.RedisServerProcess redis) {
        redis.command("ACL", "SETUSER", "locker", "on", ">change-me", "~*", "&*", "+@all");
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(redis.host(), redis.port());
        server.setUsername("locker");
        server.setPassword("change-me");
        LettuceConnectionFactory factory = new LettuceConnectionFactory(server);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    /** An instance whose connection factory is a {@link JedisConnectionFactory}, as an application on Spring Boot's other client has. */
    public static LockerFixture connectJedis(String host, int port, Duration watchdogTimeout) {
        return connectJedis(host, port, watchdogTimeout, Duration.ofSeconds(5));
    }

    /** @param readTimeout how long Jedis waits for a reply: its command timeout */
    public static LockerFixture connectJedis(String host, int port, Duration watchdogTimeout, Duration readTimeout) {
        JedisClientConfiguration client = JedisClientConfiguration.builder().readTimeout(readTimeout).usePooling().build();
        JedisConnectionFactory factory = new JedisConnectionFactory(new RedisStandaloneConfiguration(host, port), client);
        factory.afterPropertiesSet();
        factory.start();
        return new LockerFixture(factory, watchdogTimeout, null);
    }

    public String redisKey(String key) {
        return PREFIX + key;
    }

    private boolean closed;

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        async.close();
        locker.close();
        destroyWithin(connectionFactory, Duration.ofSeconds(20));
    }

    /**
     * Lettuce's client shutdown waits without a bound for its connections to close; it was seen to wait
     * forever under heavy load (AsyncCancellationTest, LockerLeaderElectionTest, HandOffTest teardowns).
     * A test must fail, not hang: give it a bound, and past it name the frame the shutdown waits in.
     */
    static void destroyWithin(RedisConnectionFactory factory, Duration bound) {
        Thread destroyer = new Thread(() -> {
            try {
                ((DisposableBean) factory).destroy();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "fixture-connection-shutdown");
        destroyer.setDaemon(true);
        destroyer.start();
        try {
            destroyer.join(bound.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (destroyer.isAlive()) {
            throw new IllegalStateException("The connection factory did not shut down within " + bound + "; where it waits:"
                    + stackOf(destroyer) + busyClientThreads(destroyer));
        }
    }

    /**
     * Frames that show where a shutdown hangs: every Lettuce or redis-lock thread except those parked idle
     * (an event loop waiting in select/epoll, a pool worker waiting for a task), whose stacks say nothing.
     */
    private static String busyClientThreads(Thread destroyer) {
        StringBuilder busy = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, frames) -> {
            boolean ours = thread.getName().startsWith("lettuce-") || thread.getName().startsWith("redis-lock-");
            if (thread != destroyer && ours && !parkedIdle(frames)) {
                busy.append(stackOf(thread, frames));
            }
        });
        return busy.isEmpty() ? "\n(no Lettuce or redis-lock thread busy)" : busy.toString();
    }

    private static boolean parkedIdle(StackTraceElement[] frames) {
        for (StackTraceElement frame : frames) {
            String at = frame.getClassName() + "." + frame.getMethodName();
            if (at.endsWith("ThreadPoolExecutor.getTask") || at.endsWith("SingleThreadEventExecutor.takeTask")
                    || at.endsWith(".epollWait") || at.endsWith(".epollBusyWait") || at.endsWith(".kqueueWait")
                    || at.endsWith("NioEventLoop.select") || at.endsWith("NioIoHandler.select")
                    || at.endsWith("HashedWheelTimer$Worker.waitForNextTick")) {
                return true;
            }
        }
        return frames.length == 0;
    }

    private static String stackOf(Thread thread) {
        return stackOf(thread, thread.getStackTrace());
    }

    private static String stackOf(Thread thread, StackTraceElement[] frames) {
        StringBuilder stack = new StringBuilder("\n\"").append(thread.getName()).append("\" ").append(thread.getState());
        for (StackTraceElement frame : frames) {
            stack.append("\n\tat ").append(frame);
        }
        return stack.toString();
    }
}
