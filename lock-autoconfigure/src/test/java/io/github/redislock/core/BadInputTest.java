package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.Locker;
import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockRedisException;
import io.github.redislock.LockLostException;
import io.github.redislock.LockUtil;
import io.github.redislock.RedisLock;
import io.github.redislock.integration.LockerLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.reliability.ReliabilityReport;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Wrong calls and wrong settings get an exception that names the problem, and leave no lock or
 * subscription behind. One parameterized source of cases, also tabulated in docs/reliability.md.
 */
class BadInputTest {

    static final String LONG_KEY = "k".repeat(LockKeys.MAX_KEY_LENGTH + 1);
    static final List<String> table = new ArrayList<>();

    LockerFixture instance;
    Locker locker;

    /** One bad input: how it is made, and what the caller must get (no exception when {@code type} is null). */
    record BadInput(String input, Call call, Class<? extends Throwable> type, String... messageParts) {
        @Override
        public String toString() {
            return input;
        }
    }

    @FunctionalInterface
    interface Call {
        void run(BadInputTest test) throws Throwable;
    }

    static Stream<BadInput> badInputs() {
        return Stream.of(
                new BadInput("null key: `lock(null)`", t -> t.locker.lock(null), IllegalArgumentException.class, "Lock key must not be null or blank"),
                new BadInput("empty key: `tryLock(\"\")`", t -> t.locker.tryLock(""), IllegalArgumentException.class, "Lock key must not be null or blank"),
                new BadInput("blank key: `getLock(\"  \\t\")`", t -> t.locker.getLock("  \t"), IllegalArgumentException.class, "Lock key must not be null or blank"),
                new BadInput("key of 1,025 characters (limit 1,024)", t -> t.locker.lock(LONG_KEY), IllegalArgumentException.class, "limit of " + LockKeys.MAX_KEY_LENGTH),
                new BadInput("key of exactly 1,024 characters", t -> {
                    String key = "bad-" + "k".repeat(LockKeys.MAX_KEY_LENGTH - 4);
                    assertThat(t.locker.tryLock(key)).isTrue();
                    t.locker.unlock(key);
                }, null),
                new BadInput("negative wait: `tryLock(k, -5, -1, SECONDS)`", t -> t.locker.tryLock("bad-w", -5, -1, TimeUnit.SECONDS),
                        IllegalArgumentException.class, "Wait time for lock 'bad-w'", "-5 SECONDS"),
                new BadInput("zero lease: `tryLock(k, 0, 0, SECONDS)`", t -> t.locker.tryLock("bad-l", 0, 0, TimeUnit.SECONDS),
                        IllegalArgumentException.class, "Lease time for lock 'bad-l' must be positive, or -1"),
                new BadInput("negative lease: `lock(k, -7)`", t -> t.locker.lock("bad-l", -7), IllegalArgumentException.class, "-7 SECONDS"),
                new BadInput("overflowing lease: `tryLock(k, 0, Long.MAX_VALUE, DAYS)`", t -> t.locker.tryLock("bad-l", 0, Long.MAX_VALUE, TimeUnit.DAYS),
                        IllegalArgumentException.class, "between 1 ms and 365 days"),
                new BadInput("lease that rounds to 0 ms: 10 µs", t -> t.locker.tryLock("bad-l", 0, 10, TimeUnit.MICROSECONDS),
                        IllegalArgumentException.class, "between 1 ms and 365 days"),
                new BadInput("null unit: `tryLock(k, 1, -1, null)`", t -> t.locker.tryLock("bad-u", 1, -1, null), NullPointerException.class, "TimeUnit for lock 'bad-u'"),
                new BadInput("null unit: `lock(k, null, 5)`", t -> t.locker.lock("bad-u", null, 5), NullPointerException.class, "TimeUnit for lock 'bad-u'"),
                new BadInput("`Long.MAX_VALUE` wait: `tryLock(k, Long.MAX_VALUE, -1, DAYS)`", t -> {
                    assertThat(t.locker.tryLock("bad-forever", Long.MAX_VALUE, -1, TimeUnit.DAYS)).isTrue();
                    t.locker.unlock("bad-forever");
                }, null),
                new BadInput("unlock of a lock never taken", t -> t.locker.unlock("bad-never"), IllegalMonitorStateException.class,
                        "Cannot unlock 'bad-never' (Redis key lock:bad-never): it is not held by owner"),
                new BadInput("double unlock", t -> {
                    t.locker.lock("bad-twice");
                    t.locker.unlock("bad-twice");
                    t.locker.unlock("bad-twice");
                }, IllegalMonitorStateException.class, "Cannot unlock 'bad-twice'"),
                new BadInput("unlock after the lease expired", t -> {
                    assertThat(t.locker.tryLock("bad-expired", 0, 200, TimeUnit.MILLISECONDS)).isTrue();
                    await().atMost(Duration.ofSeconds(5)).until(() -> !t.locker.isLocked("bad-expired"));
                    t.locker.unlock("bad-expired");
                }, LockLostException.class, "was lost while owner", "its lease of 200 ms expired"),
                new BadInput("`fencingToken(k)` first asked after the lock's key was deleted", t -> {
                    t.locker.lock("bad-token-lost");
                    t.instance.redis.delete("lock:bad-token-lost");
                    Throwable asked = catchThrowable(() -> t.locker.fencingToken("bad-token-lost"));
                    Throwable unlocked = catchThrowable(() -> t.locker.unlock("bad-token-lost"));
                    assertThat(unlocked).as("the unlock after it").isInstanceOf(LockLostException.class);
                    throw asked;
                }, LockLostException.class, "Lock 'bad-token-lost' (Redis key lock:bad-token-lost) was lost while owner",
                        "held it: Redis no longer had it when its fencing token was asked for"),
                new BadInput("unlock from another thread", t -> {
                    t.locker.lock("bad-other-thread");
                    String owner = t.instance.locker.getClientId() + ":" + Thread.currentThread().getId();
                    Throwable foreign = catchThrowable(() -> CompletableFuture.runAsync(() -> t.locker.unlock("bad-other-thread")).join());
                    boolean stillOwned = t.instance.redis.opsForHash().hasKey("lock:bad-other-thread", owner);
                    Throwable ownUnlock = catchThrowable(() -> t.locker.unlock("bad-other-thread"));
                    // The owner's unlock must not be what this case reports: after a wrongly accepted foreign unlock it fails alike.
                    assertThat(stillOwned).as("held by its owner in Redis right after the other thread's unlock").isTrue();
                    assertThat(ownUnlock).as("the owner's own unlock").isNull();
                    assertThat(foreign).as("the other thread's unlock").isNotNull();
                    throw foreign.getCause() != null ? foreign.getCause() : foreign;
                }, IllegalMonitorStateException.class, "not held by owner", "calling thread"),
                new BadInput("`unlockAs` with a token that never locked", t -> t.locker.unlockAs("unknown-token", "bad-token"),
                        IllegalMonitorStateException.class, "Cannot unlock 'bad-token'"),
                new BadInput("null owner token: `tryLockAs(null, ...)`", t -> t.locker.tryLockAs(null, "bad-token", 0, -1, TimeUnit.SECONDS),
                        IllegalArgumentException.class, "Owner token must be 1 to 200 non-blank characters, but was null"),
                new BadInput("owner token of 201 characters", t -> t.locker.tryLockAs("t".repeat(201), "bad-token", 0, -1, TimeUnit.SECONDS),
                        IllegalArgumentException.class, "Owner token must be 1 to 200 non-blank characters"),
                new BadInput("`getLock(k).newCondition()`", t -> t.locker.getLock("bad-c").newCondition(), UnsupportedOperationException.class, "'bad-c'"),
                new BadInput("`withLock(k, null, action)`", t -> t.locker.withLock("bad-with", null, () -> { }), NullPointerException.class,
                        "Wait time for lock 'bad-with' must not be null"),
                new BadInput("negative wait: `withLock(k, Duration.ofMillis(-1), action)` (-1 means forever only for tryLock's long)",
                        t -> t.locker.withLock("bad-with", Duration.ofMillis(-1), () -> { }), IllegalArgumentException.class,
                        "Wait time for lock 'bad-with' must be 0 or more", "PT-0.001S"),
                new BadInput("`withLock(k, wait, null)`", t -> t.locker.withLock("bad-with", Duration.ZERO, (java.util.function.Supplier<?>) null),
                        NullPointerException.class, "Action for lock 'bad-with' must not be null"),
                new BadInput("`withLock(k, ChronoUnit.FOREVER.getDuration(), action)` (a wait beyond a `long` of milliseconds)", t -> {
                    AtomicReference<Boolean> ran = new AtomicReference<>(false);
                    t.locker.withLock("bad-forever", java.time.temporal.ChronoUnit.FOREVER.getDuration(), () -> ran.set(true));
                    assertThat(ran.get()).as("action ran under the lock").isTrue();
                }, null),
                new BadInput("`withLock` on a lock that stays busy", t -> {
                    try (LockerFixture other = t.other()) {
                        other.locker.lock("bad-busy");
                        try {
                            t.locker.withLock("bad-busy", Duration.ofMillis(200), () -> { });
                        } finally {
                            other.locker.unlock("bad-busy");
                        }
                    }
                }, LockAcquisitionException.class, "Could not acquire lock 'bad-busy' within PT0.2S: it is held by another owner"),
                new BadInput("negative holdAtLeast: `unlock(k, Duration.ofSeconds(-1))`", t -> {
                    t.locker.lock("bad-hold");
                    try {
                        t.locker.unlock("bad-hold", Duration.ofSeconds(-1));
                    } finally {
                        t.locker.unlock("bad-hold");
                    }
                }, IllegalArgumentException.class, "holdAtLeast for lock 'bad-hold' must be 0 or more", "PT-1S"),
                new BadInput("`asyncLocker.acquire(k, Duration.ofSeconds(-1), null)` (thrown, not a failed stage)",
                        t -> t.instance.async.acquire("bad-async", Duration.ofSeconds(-1), null), IllegalArgumentException.class,
                        "Wait time for lock 'bad-async' must be 0 or more, or null to wait as long as it takes, but was PT-1S"),
                new BadInput("`asyncLocker.acquire(k, wait, Duration.ZERO)`", t -> t.instance.async.acquire("bad-async", Duration.ZERO, Duration.ZERO),
                        IllegalArgumentException.class, "Lease time for lock 'bad-async' must be positive, or null for the watchdog"),
                new BadInput("`reactiveLocker.acquire(k, Duration.ofSeconds(-1), null)`, subscribed",
                        t -> t.instance.reactive.acquire("bad-reactive", Duration.ofSeconds(-1), null).block(Duration.ofSeconds(5)),
                        IllegalArgumentException.class, "Wait time for lock 'bad-reactive' must be 0 or more"),
                new BadInput("negative wait: `asyncLocker.withLock(k, Duration.ofMillis(-1), work)` (-1 means forever only for tryLock's long)",
                        t -> joined(t.instance.async.withLock("bad-async", Duration.ofMillis(-1), handle -> failedWork())), IllegalArgumentException.class,
                        "Wait time for lock 'bad-async' must be 0 or more", "PT-0.001S"),
                new BadInput("negative wait: `reactiveLocker.withLock(k, Duration.ofMillis(-1), mono)`, subscribed",
                        t -> t.instance.reactive.withLock("bad-reactive", Duration.ofMillis(-1), Mono.fromFuture(BadInputTest::failedWork)).block(Duration.ofSeconds(5)),
                        IllegalArgumentException.class, "Wait time for lock 'bad-reactive' must be 0 or more", "PT-0.001S"),
                new BadInput("negative wait: `reactiveLocker.withLock(k, Duration.ofSeconds(-1), flux)`, subscribed",
                        t -> t.instance.reactive.withLock("bad-reactive", Duration.ofSeconds(-1), Flux.from(Mono.fromFuture(BadInputTest::failedWork)))
                                .blockLast(Duration.ofSeconds(5)),
                        IllegalArgumentException.class, "Wait time for lock 'bad-reactive' must be 0 or more", "PT-1S"),
                new BadInput("`asyncLocker.withLock(k, Duration.ZERO, work)` on a busy lock (tries once)", t -> {
                    try (LockerFixture other = t.other()) {
                        other.locker.lock("bad-busy");
                        try {
                            joined(t.instance.async.withLock("bad-busy", Duration.ZERO, handle -> failedWork()));
                        } finally {
                            other.locker.unlock("bad-busy");
                        }
                    }
                }, LockAcquisitionException.class, "Could not acquire lock 'bad-busy' within PT0S"),
                new BadInput("`reactiveLocker.withLock(k, Duration.ZERO, mono)` on a busy lock (tries once)", t -> {
                    try (LockerFixture other = t.other()) {
                        other.locker.lock("bad-busy");
                        try {
                            t.instance.reactive.withLock("bad-busy", Duration.ZERO, Mono.fromFuture(BadInputTest::failedWork)).block(Duration.ofSeconds(5));
                        } finally {
                            other.locker.unlock("bad-busy");
                        }
                    }
                }, LockAcquisitionException.class, "Could not acquire lock 'bad-busy' within PT0S"),
                new BadInput("`LockerLockRegistry.obtain(42)` (not a String)", t -> new LockerLockRegistry<RedisLock>(t.locker).obtain(42),
                        IllegalArgumentException.class, "A lock key of LockerLockRegistry must be a non-blank String, but was java.lang.Integer '42'"),
                new BadInput("`LockerLockRegistry.renewLock(k, ttl)` with a ttl beyond a `long` of milliseconds", t -> {
                    LockerLockRegistry<RedisLock> registry = new LockerLockRegistry<>(t.locker);
                    RedisLock lock = registry.obtain("bad-renew");
                    lock.lock();
                    try {
                        registry.renewLock("bad-renew", Duration.ofSeconds(Long.MAX_VALUE));
                    } finally {
                        lock.unlock();
                    }
                }, IllegalArgumentException.class, "Lease time for lock 'bad-renew' must be between 1 ms and 365 days"),
                new BadInput("lock key holding a Redis value of another type", t -> {
                    t.instance.redis.opsForValue().set("lock:bad-not-a-hash", "x");
                    try {
                        t.locker.lock("bad-not-a-hash");
                    } finally {
                        t.instance.redis.delete("lock:bad-not-a-hash");
                    }
                }, LockRedisException.class, "lock:bad-not-a-hash", "WRONGTYPE"),
                new BadInput("interrupt while waiting", t -> {
                    try (LockerFixture other = t.other()) {
                        other.locker.lock("bad-busy");
                        ExecutorService waiter = Executors.newSingleThreadExecutor();
                        try {
                            Future<Boolean> waiting = waiter.submit(() -> t.locker.tryLock("bad-busy", 30, -1, TimeUnit.SECONDS));
                            await().atMost(Duration.ofSeconds(5)).until(() -> t.instance.subscriptions.waiterCount() == 1);
                            waiter.shutdownNow(); // interrupts the waiting thread
                            throw new AssertionError("tryLock returned " + waiting.get(5, TimeUnit.SECONDS) + " although interrupted");
                        } catch (ExecutionException e) {
                            throw e.getCause();
                        } finally {
                            waiter.shutdownNow();
                            other.locker.unlock("bad-busy");
                        }
                    }
                }, InterruptedException.class, "Interrupted while waiting for 'bad-busy'"),
                new BadInput("lock and unlock on an already interrupted thread", t -> {
                    Thread.currentThread().interrupt();
                    try {
                        t.locker.lock("bad-interrupted");
                        t.locker.unlock("bad-interrupted");
                        assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag kept").isTrue();
                    } finally {
                        Thread.interrupted();
                    }
                }, null),
                new BadInput("closed Locker", t -> {
                    t.instance.locker.close();
                    t.locker.tryLock("bad-late");
                }, IllegalStateException.class, "Locker is closed"),
                new BadInput("Locker bean used after the application context closed", t -> {
                    AtomicReference<Locker> bean = new AtomicReference<>();
                    contextRunner().run(context -> bean.set(context.getBean(Locker.class)));
                    bean.get().tryLock("bad-late");
                }, IllegalStateException.class, "Locker is closed (its application context has shut down)"),
                new BadInput("`LockUtil` used after the application context closed", t -> {
                    contextRunner().run(context -> {
                        assertThat(LockUtil.tryLock("bad-static")).isTrue();
                        LockUtil.unlock("bad-static");
                    });
                    LockUtil.tryLock("bad-static");
                }, IllegalStateException.class, "LockUtil has no Locker"),
                new BadInput("Redis down at call time", t -> {
                    try (LockerFixture unreachable = LockerFixture.connect("127.0.0.1", closedPort(), Duration.ofSeconds(1), Duration.ofMillis(500))) {
                        long start = System.nanoTime();
                        try {
                            unreachable.locker.tryLock("bad-down", 1, -1, TimeUnit.SECONDS);
                        } finally {
                            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
                            assertThat(unreachable.subscriptions.waiterCount()).isZero();
                            assertThat(unreachable.locker.heldLockCount()).isZero();
                        }
                    }
                }, LockRedisException.class, "Redis command for lock lock:bad-down failed"),
                new BadInput("Redis down at startup (the context starts; connections are lazy), first call", t -> {
                    int port = closedPort();
                    AtomicReference<Throwable> failure = new AtomicReference<>();
                    new ApplicationContextRunner().withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                            .withPropertyValues("spring.data.redis.port=" + port, "spring.data.redis.timeout=500ms")
                            .run(context -> failure.set(catchThrowable(() -> context.getBean(Locker.class).tryLock("bad-down"))));
                    throw failure.get();
                }, LockRedisException.class, "Redis command for lock lock:bad-down failed", "Connection refused"),
                new BadInput("`redis-lock.key-prefix=` (blank)", t -> startup("redis-lock.key-prefix= "), IllegalArgumentException.class,
                        "redis-lock.key-prefix must not be blank"),
                new BadInput("`redis-lock.watchdog-timeout=50ms`", t -> startup("redis-lock.watchdog-timeout=50ms"), IllegalArgumentException.class,
                        "redis-lock.watchdog-timeout must be at least 100ms"),
                new BadInput("`redis-lock.watchdog-timeout=-5s`", t -> startup("redis-lock.watchdog-timeout=-5s"), IllegalArgumentException.class,
                        "redis-lock.watchdog-timeout must be at least 100ms, but was PT-5S"),
                new BadInput("`redis-lock.watchdog-timeout=soon` (not a duration)", t -> startup("redis-lock.watchdog-timeout=soon"), BindException.class,
                        "redis-lock.watchdog-timeout"),
                new BadInput("`redis-lock.default-wait-time=-1s`", t -> startup("redis-lock.default-wait-time=-1s"), IllegalArgumentException.class,
                        "redis-lock.default-wait-time must be 0 or more"),
                new BadInput("`redis-lock.replica-sync=0ms`", t -> startup("redis-lock.replica-sync=0ms"), IllegalArgumentException.class,
                        "redis-lock.replica-sync must be at least 1ms"),
                new BadInput("`RedisLocker.builder(...).keyPrefix(\" \")`", t -> RedisLocker.builder(t.instance.connectionFactory).keyPrefix(" ").build(),
                        IllegalArgumentException.class, "keyPrefix (redis-lock.key-prefix) must not be blank, but was ' '"),
                new BadInput("`RedisLocker.builder(...).watchdogTimeout(Duration.ofMillis(2))`",
                        t -> RedisLocker.builder(t.instance.connectionFactory).watchdogTimeout(Duration.ofMillis(2)).build(),
                        IllegalArgumentException.class, "watchdogTimeout (redis-lock.watchdog-timeout) must be at least 3 ms, but was PT0.002S"),
                new BadInput("`RedisLocker.builder(...).replicaSync(Duration.ZERO)` (Redis's WAIT would wait forever)",
                        t -> RedisLocker.builder(t.instance.connectionFactory).replicaSync(Duration.ZERO).build().tryLock("bad-sync-zero"),
                        IllegalArgumentException.class, "replicaSync must be at least 1ms"),
                new BadInput("`RedisLocker.builder(...).replicaSync(Duration.ofMillis(-1))`",
                        t -> RedisLocker.builder(t.instance.connectionFactory).replicaSync(Duration.ofMillis(-1)).build().tryLock("bad-sync-negative"),
                        IllegalArgumentException.class, "replicaSync must be at least 1ms"),
                new BadInput("`redis-lock.replica-sync=200ms` on a Redis without replicas", t -> {
                    AtomicReference<Throwable> failure = new AtomicReference<>();
                    contextRunner().withPropertyValues("redis-lock.replica-sync=200ms")
                            .run(context -> failure.set(catchThrowable(() -> context.getBean(Locker.class).tryLock("bad-unreplicated"))));
                    throw failure.get();
                }, LockRedisException.class, "no replica acknowledged it within PT0.2S", "released again"),
                new BadInput("`redis-lock.enabled=maybe`", t -> startup("redis-lock.enabled=maybe"), InvalidConfigurationPropertyValueException.class,
                        "redis-lock.enabled must be true or false"));
    }

    @BeforeEach
    void connect() {
        instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
        locker = instance.locker;
    }

    @AfterEach
    void nothingIsLeftBehind() {
        assertThat(instance.locker.heldLockCount()).as("locks left held").isZero();
        assertThat(instance.subscriptions.waiterCount()).as("waiters left subscribed").isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> instance.subscriptions.subscribedChannelCount() == 0);
        assertThat(instance.redis.keys("lock:bad-*")).as("lock keys left in Redis").isEmpty();
        assertThat(TestRedis.shared().command("PUBSUB", "CHANNELS", "lock:{lock:bad-*")).as("release channels still subscribed").isEqualTo(List.of());
        instance.close();
    }

    @AfterAll
    static void tabulate() {
        ReliabilityReport.write("bad-input", ReliabilityReport.runLine() + "\n\n| bad input | what the caller gets | message |\n|---|---|---|\n"
                + String.join("\n", table));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInputs")
    void getsAnExceptionNamingTheProblemAndLeavesNothingBehind(BadInput bad) {
        Throwable thrown = catchThrowable(() -> bad.call().run(this));
        if (bad.type() == null) {
            assertThat(thrown).as("accepted").isNull();
            table.add("| " + bad.input() + " | accepted | |");
            return;
        }
        assertThat(thrown).isInstanceOf(bad.type());
        for (String part : bad.messageParts()) {
            assertThat(thrown.getMessage()).contains(part);
        }
        table.add("| " + bad.input() + " | `" + thrown.getClass().getSimpleName() + "` | " + forTable(thrown.getMessage()) + " |");
    }

    LockerFixture other() {
        return LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
    }

    static ApplicationContextRunner contextRunner() {
        return new ApplicationContextRunner().withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());
    }

    /** Starts a context with the given property and throws what names the problem: the setter's own exception, or the binder's. */
    static void startup(String property) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        contextRunner().withPropertyValues(property).run(context -> failure.set(context.getStartupFailure()));
        assertThat(failure.get()).as("startup failure").isNotNull();
        Throwable namingTheProperty = null;
        for (Throwable t = failure.get(); t != null; t = t.getCause()) {
            if (t instanceof BindException || t instanceof InvalidConfigurationPropertyValueException
                    || (t instanceof IllegalArgumentException && t.getMessage() != null && t.getMessage().contains("redis-lock."))) {
                namingTheProperty = t;
            }
        }
        throw namingTheProperty != null ? namingTheProperty : failure.get();
    }

    /** Work that must never run: a call accepted by mistake fails with it instead of the expected exception. */
    static CompletableFuture<String> failedWork() {
        return CompletableFuture.failedFuture(new AssertionError("the work ran"));
    }

    /** Waits for the stage and throws what failed it, unwrapped. */
    static void joined(java.util.concurrent.CompletionStage<?> stage) throws Throwable {
        try {
            stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Keeps the table stable from run to run: no client ids, ports or thread names. */
    static String forTable(String message) {
        String stable = message.replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<clientId>")
                .replaceAll("<clientId>:\\d+", "<clientId>:<threadId>")
                .replaceAll("127\\.0\\.0\\.1[:/]\\d+", "127.0.0.1:<port>")
                .replaceAll("localhost/<unresolved>:\\d+", "localhost:<port>")
                .replaceAll("calling thread [^)]+", "calling thread <name>")
                .replace("|", "\\|").replace("\n", " ");
        return stable.length() > 300 ? stable.substring(0, 300) + "..." : stable;
    }

}
