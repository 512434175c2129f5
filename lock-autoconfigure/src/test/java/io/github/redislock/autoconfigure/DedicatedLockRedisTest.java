package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Locker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Locks on a Redis of their own ({@code redis-lock.redis.*}), the application's data on another. */
class DedicatedLockRedisTest {

    @AutoClose
    static final RedisServerProcess applicationRedis = TestRedis.startNew();
    @AutoClose
    static final RedisServerProcess lockRedis = TestRedis.startNew();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=0");

    private ApplicationContextRunner onTwoServers() {
        return contextRunner.withPropertyValues("spring.data.redis.host=" + applicationRedis.host(),
                "spring.data.redis.port=" + applicationRedis.port(),
                "redis-lock.redis.url=redis://" + lockRedis.host() + ":" + lockRedis.port(), "redis-lock.watchdog-timeout=1s");
    }

    @Test
    void locksLiveOnTheDedicatedRedisAndTheApplicationsDataOnItsOwn() {
        onTwoServers().run(context -> {
            Locker locker = context.getBean(Locker.class);
            context.getBean(StringRedisTemplate.class).opsForValue().set("order:1", "paid");
            locker.lock("dedicated");
            try {
                assertThat(lockRedis.command("EXISTS", "lock:dedicated")).isEqualTo(1L);
                assertThat(applicationRedis.command("KEYS", "*")).isEqualTo(List.of("order:1"));
            } finally {
                locker.unlock("dedicated");
            }
            assertThat(lockRedis.command("EXISTS", "order:1")).isEqualTo(0L);
        });
    }

    @Test
    void aWaiterIsHandedTheLockThroughTheDedicatedRedis() {
        onTwoServers().run(context -> {
            Locker locker = context.getBean(Locker.class);
            locker.lock("dedicated-wait");
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    boolean got = locker.tryLock("dedicated-wait", 5, -1, TimeUnit.SECONDS);
                    locker.unlock("dedicated-wait");
                    return got;
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
            org.awaitility.Awaitility.await().until(() -> lockRedis.commandCount("evalsha") + lockRedis.commandCount("eval") >= 2);
            locker.unlock("dedicated-wait");
            assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
            assertThat(applicationRedis.command("PUBSUB", "CHANNELS")).isEqualTo(List.of());
        });
    }

    @Test
    void theSentinelFormsPasswordLogsInToTheSentinelsAsWellAsTheMaster() {
        RedisServerProcess master = TestRedis.startNew("--requirepass", "secret").useCredentials(null, "secret");
        RedisServerProcess sentinel = null;
        try {
            sentinel = TestRedis.startNew("--sentinel", "monitor", "locks", master.host(), Integer.toString(master.port()), "1",
                    "--sentinel", "auth-pass", "locks", "secret", "--requirepass", "secret").useCredentials(null, "secret");
            contextRunner.withPropertyValues("redis-lock.redis.sentinel.master=locks",
                            "redis-lock.redis.sentinel.nodes=" + sentinel.host() + ":" + sentinel.port(), "redis-lock.redis.password=secret")
                    .run(context -> {
                        Locker locker = context.getBean(Locker.class);
                        locker.lock("sentinel-login");
                        try {
                            assertThat(master.command("EXISTS", "lock:sentinel-login")).isEqualTo(1L);
                        } finally {
                            locker.unlock("sentinel-login");
                        }
                    });
        } finally {
            try {
                if (sentinel != null) {
                    sentinel.stop();
                }
            } finally {
                master.stop();
            }
        }
    }

    @Test
    void moreThanOneWayToTheDedicatedRedisFailsStartupNamingTheProperties() {
        contextRunner.withPropertyValues("redis-lock.redis.url=redis://" + lockRedis.host() + ":" + lockRedis.port(),
                "redis-lock.redis.cluster.nodes=" + lockRedis.host() + ":" + lockRedis.port())
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redis.url").hasMessageContaining("redis-lock.redis.cluster.nodes"));
    }

    @Test
    void aUrlWithoutAHostOrPortFailsStartupNamingThePropertyInsteadOfFailingAtTheFirstLock() {
        contextRunner.withPropertyValues("redis-lock.redis.url=redis://:secret@:" + lockRedis.port())
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redis.url has an invalid URL").hasMessageContaining("it names no host")
                        .message().doesNotContain("secret"));
        contextRunner.withPropertyValues("redis-lock.redis.url=redis://" + lockRedis.host() + ":port")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redis.url has an invalid URL").hasMessageContaining("do not parse as host:port"));
    }

    @Test
    void aReplicaSyncNotShorterThanTheDedicatedRedisTimeoutFailsStartupNamingBoth() {
        contextRunner.withPropertyValues("redis-lock.redis.url=" + lockRedis.redisUri(), "redis-lock.redis.timeout=1s", "redis-lock.replica-sync=2s")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.replica-sync (2000ms) must be shorter than the command timeout of the locks' Redis, "
                                + "redis-lock.redis.timeout (1000ms)"));
    }

    @Test
    void aBlankSentinelMasterFailsStartupNamingTheProperty() {
        contextRunner.withPropertyValues("redis-lock.redis.sentinel.master= ", "redis-lock.redis.sentinel.nodes=127.0.0.1:26379")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redis.sentinel.master must name the master"));
    }

    @Test
    void aNodeThatIsNotHostAndPortFailsStartupNamingTheProperty() {
        contextRunner.withPropertyValues("redis-lock.redis.cluster.nodes=" + lockRedis.host())
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redis.cluster.nodes has an invalid node '" + lockRedis.host() + "': write it as host:port"));
        contextRunner.withPropertyValues("redis-lock.redis.sentinel.master=locks", "redis-lock.redis.sentinel.nodes=127.0.0.1:sentinel")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redis.sentinel.nodes has an invalid node '127.0.0.1:sentinel'"));
    }

    @Test
    void aUrlThatIsNotARedisUrlFailsStartupNamingTheProperty() {
        contextRunner.withPropertyValues("redis-lock.redis.url=http://user:secret@locks:6379")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redis.url").hasMessageContaining("http://locks:6379")
                        .message().doesNotContain("secret"));
    }
}
