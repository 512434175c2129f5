package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.ReactiveLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

class RedisLockAsyncAutoConfigurationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockAsyncAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void anAsyncAndAReactiveLockerShareTheLockersLocks() {
        contextRunner.run(context -> {
            assertThat(context).hasSingleBean(AsyncLocker.class).hasSingleBean(ReactiveLocker.class);
            LockHandle handle = context.getBean(AsyncLocker.class).acquire("async-autoconfigured", Duration.ZERO, null)
                    .toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(context.getBean(Locker.class).tryLock("async-autoconfigured")).as("a thread, while a handle holds it").isFalse();
            context.getBean(AsyncLocker.class).release(handle).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(context.getBean(ReactiveLocker.class).withLock("async-autoconfigured", Duration.ZERO, Mono.just("ran"))
                    .block(Duration.ofSeconds(5))).isEqualTo("ran");
            assertThat(context.getBean(Locker.class).isLocked("async-autoconfigured")).isFalse();
        });
    }

    @Test
    void withoutReactorThereIsAnAsyncLockerOnly() {
        contextRunner.withClassLoader(new FilteredClassLoader("reactor.core"))
                .run(context -> assertThat(context).hasSingleBean(AsyncLocker.class).doesNotHaveBean(ReactiveLocker.class));
    }

    @Test
    void switchedOffWithTheLocker() {
        contextRunner.withPropertyValues("redis-lock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(AsyncLocker.class).doesNotHaveBean(ReactiveLocker.class));
    }
}
