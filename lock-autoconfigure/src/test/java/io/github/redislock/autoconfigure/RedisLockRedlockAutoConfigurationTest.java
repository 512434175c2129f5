package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LeaderElection;
import io.github.redislock.Locker;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.RedlockLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.support.locks.LockRegistry;

class RedisLockRedlockAutoConfigurationTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockRedlockAutoConfiguration.class,
                    RedisLockAutoConfiguration.class, RedisLockAsyncAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void listingMastersSwitchesTheLockerToRedlock() {
        application.withPropertyValues("redis-lock.redlock.node-timeout=1s",
                        "redis-lock.redlock.nodes=" + masters.urls())
                .run(context -> {
                    assertThat(context).hasSingleBean(Locker.class).doesNotHaveBean(AsyncLocker.class);
                    assertThat(context.getBean(Locker.class)).isInstanceOf(RedlockLocker.class);
                    RedlockLocker locker = context.getBean(RedlockLocker.class);
                    assertThat(locker.getQuorum()).isEqualTo(2);
                    locker.lock("configured");
                    assertThat(masters.copiesOf("lock:configured")).isEqualTo(3);
                    locker.unlock("configured");
                });
    }

    @Test
    void twoOfThreeMastersTakeTheLockWhileOneIsDown() {
        masters.get(1).stop();
        application.withPropertyValues("redis-lock.redlock.node-timeout=500ms", "redis-lock.redlock.nodes=" + masters.urls())
                .run(context -> {
                    Locker locker = context.getBean(Locker.class);
                    assertThat(locker.tryLock("one-master-down")).isTrue();
                    assertThat(masters.copiesOf("lock:one-master-down")).isEqualTo(2);
                    locker.unlock("one-master-down");
                    assertThat(masters.copiesOf("lock:one-master-down")).isZero();
                });
    }

    /** Spring Integration merely on the classpath: nothing uses a registry, so nothing may stop the application. */
    @Test
    void springIntegrationOnTheClasspathStartsARedlockApplicationWithoutARegistryOrAnElection() {
        application.withConfiguration(AutoConfigurations.of(RedisLockLeaderAutoConfiguration.class, RedisLockIntegrationAutoConfiguration.class))
                .withPropertyValues("redis-lock.redlock.nodes=" + masters.urls())
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(RedlockLocker.class)
                        .doesNotHaveBean(LockRegistry.class).doesNotHaveBean(LeaderElection.class));
    }

    @Test
    void aRegistryLeaseWithRedlockFailsStartupNamingBothProperties() {
        application.withPropertyValues("redis-lock.redlock.nodes=" + masters.urls(), "redis-lock.integration.lease=5s")
                .run(context -> assertThat(context).getFailure().rootCause().isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("redis-lock.integration.lease has no effect with redis-lock.redlock.nodes"));
    }

    @Test
    void aLeaderRoleWithRedlockFailsStartupNamingBothProperties() {
        application.withPropertyValues("redis-lock.redlock.nodes=" + masters.urls(), "redis-lock.leader.roles.billing.lease=5s")
                .run(context -> assertThat(context).getFailure().rootCause().isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("redis-lock.leader.roles has no effect with redis-lock.redlock.nodes"));
    }

    @Test
    void redlockNeedsNoRedisConnectionFactoryOfTheApplication() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RedisLockRedlockAutoConfiguration.class, RedisLockAutoConfiguration.class,
                        RedisLockAnnotationAutoConfiguration.class))
                .withPropertyValues("redis-lock.redlock.node-timeout=1s", "redis-lock.redlock.nodes=" + masters.urls())
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(RedisConnectionFactory.class);
                    Locker locker = context.getBean(Locker.class);
                    locker.lock("no-application-redis");
                    assertThat(masters.copiesOf("lock:no-application-redis")).isEqualTo(3);
                    locker.unlock("no-application-redis");
                });
    }

    @Test
    void theServerVersionCheckedAtStartupIsEveryRedlockMastersNotTheApplicationsRedis() {
        application.withPropertyValues("redis-lock.redlock.nodes=" + masters.urls())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeansOfType(RedisServerVersionCheck.class).values())
                            .flatExtracting(check -> List.copyOf(check.servers()))
                            .containsExactlyElementsOf(masters.list().stream().map(master -> "the Redlock master " + master.redisUri()).toList());
                });
    }

    @Test
    void withoutMastersTheLockerUsesTheApplicationsRedis() {
        application.run(context -> assertThat(context.getBean(Locker.class)).isInstanceOf(RedisLocker.class));
    }

    @Test
    void fewerThanThreeMastersFailStartupNamingTheProperty() {
        application.withPropertyValues("redis-lock.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redlock.nodes needs at least 3 independent Redis masters, but lists 2"));
    }

    @Test
    void anInvalidMasterUrlFailsStartupNamingTheUrl() {
        application.withPropertyValues("redis-lock.redlock.nodes=redis://127.0.0.1:1,http://127.0.0.1:2,redis://127.0.0.1:3")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redlock.nodes has an invalid URL 'http://127.0.0.1:2'"));
    }

    @Test
    void theSameMasterListedTwiceFailsStartupBecauseItWouldCountAsTwoOfTheMajority() {
        String master = masters.get(0).redisUri();
        application.withPropertyValues("redis-lock.redlock.nodes=" + master + "," + masters.get(1).redisUri() + "," + master + "/1")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redlock.nodes lists the server " + masters.get(0).host() + ":" + masters.get(0).port() + " more than once"));
    }

    @Test
    void anInvalidMasterUrlIsNamedWithoutItsPassword() {
        application.withPropertyValues("redis-lock.redlock.nodes=redis://127.0.0.1:1,http://user:secret@127.0.0.1:2,redis://127.0.0.1:3")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("redis-lock.redlock.nodes has an invalid URL 'http://127.0.0.1:2'")
                        .message().doesNotContain("secret"));
    }

    @Test
    void aRedlockInstanceClosedWhileAThreadWaitsLeavesTheKeyFreeAfterTheHoldersUnlock() {
        assertThat(closeAnInstanceWhileItsThreadWaits()).as("the wait of the closed instance").failsWithin(Duration.ofSeconds(5));
    }

    @Test
    void aThreadWaitingWhenItsRedlockInstanceClosesFailsSayingTheLockerIsClosed() {
        assertThat(closeAnInstanceWhileItsThreadWaits()).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(IllegalStateException.class).withMessageContaining("Locker is closed");
    }

    /**
     * Instance A holds a lock, a thread of instance B waits for it, B closes: A's unlock frees the key at
     * once (Redlock queues no waiter that could be handed the lock).
     *
     * @return the wait of B's thread
     */
    private CompletableFuture<Void> closeAnInstanceWhileItsThreadWaits() {
        String key = "closing-while-waiting-" + UUID.randomUUID();
        ApplicationContextRunner instance = application.withPropertyValues("redis-lock.redlock.node-timeout=1s",
                "redis-lock.redlock.nodes=" + masters.urls());
        CompletableFuture<Void> waited = new CompletableFuture<>();
        instance.run(holder -> {
            Locker holding = holder.getBean(Locker.class);
            holding.lock(key);
            instance.run(waiter -> {
                Thread thread = new Thread(() -> {
                    try {
                        waiter.getBean(Locker.class).lock(key);
                        waited.complete(null);
                    } catch (Throwable e) {
                        waited.completeExceptionally(e);
                    }
                }, "waiting-in-closing-redlock-instance");
                thread.setDaemon(true);
                thread.start();
                await("the thread waiting").atMost(Duration.ofSeconds(10)).until(() -> thread.getState() == Thread.State.TIMED_WAITING);

                waiter.close();
            });

            holding.unlock(key);
            assertThat(holding.tryLock(key, 1, Locker.WATCHDOG_LEASE, TimeUnit.SECONDS)).as("the key free within a second of the unlock").isTrue();
            holding.unlock(key);
        });
        return waited;
    }
}
