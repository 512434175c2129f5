package io.github.redislock.actuate;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.redislock.LockLostException;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/** The locks endpoint over real HTTP, in a web application with force-release enabled. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WebAppOnSharedRedis.App.class,
        properties = {"management.endpoints.web.exposure.include=locks", "redis-lock.actuator.force-release-enabled=true"})
class LocksEndpointWebTest extends WebAppOnSharedRedis {


    @Autowired
    RedisLocker locker;
    @Autowired
    RedisLocker subscriptions;
    @Autowired
    WebAppOnSharedRedis.App app;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void getListsTheLocksThisInstanceHoldsAndTheWatchdogsState() {
        locker.lock("web-held");
        try {
            DocumentContext json = get("/actuator/locks");
            String lock = "$.locks[?(@.key == 'web-held')]";
            assertThat(json.<List<String>>read(lock + ".redisKey")).containsExactly("lock:web-held");
            assertThat(json.<List<String>>read(lock + ".kind")).containsExactly("reentrant");
            assertThat(json.<List<String>>read(lock + ".owner")).containsExactly(locker.getClientId() + ":" + Thread.currentThread().getId());
            assertThat(json.<List<String>>read(lock + ".thread")).containsExactly(Thread.currentThread().getName());
            assertThat(json.<List<Integer>>read(lock + ".holdCount")).containsExactly(1);
            assertThat(json.<List<Boolean>>read(lock + ".renewedByWatchdog")).containsExactly(true);
            assertThat(json.<List<Number>>read(lock + ".leaseRemainingMillis")).singleElement()
                    .satisfies(ttl -> assertThat(ttl.longValue()).isBetween(1L, 30_000L));
            assertThat(json.<List<String>>read(lock + ".heldSince")).singleElement().asString().endsWith("Z");
            assertThat(json.<Integer>read("$.watchdog.timeoutMillis")).isEqualTo(30_000);
            assertThat(json.<Integer>read("$.watchdog.watchedLocks")).isGreaterThanOrEqualTo(1);
            assertThat(json.<Integer>read("$.watchdog.consecutiveFailures")).isZero();
        } finally {
            locker.unlock("web-held");
        }
    }

    @Test
    void getOfAKeyShowsItsOwnersHoldCountsAndTtlAsRedisHasThem() {
        locker.lock("web/state");
        locker.lock("web/state");
        try {
            DocumentContext json = get("/actuator/locks/web/state");
            assertThat(json.<String>read("$.redisKey")).isEqualTo("lock:web/state");
            assertThat(json.<String>read("$.type")).isEqualTo("hash");
            assertThat(json.<Map<String, Integer>>read("$.holds"))
                    .containsExactly(Map.entry(locker.getClientId() + ":" + Thread.currentThread().getId(), 2));
            assertThat(json.<Number>read("$.ttlMillis").longValue()).isBetween(1L, 30_000L);
        } finally {
            locker.unlock("web/state");
            locker.unlock("web/state");
        }
        DocumentContext free = get("/actuator/locks/web/state");
        assertThat(free.<String>read("$.type")).isEqualTo("none");
        assertThat(free.<Map<String, Integer>>read("$.holds")).isEmpty();
        assertThat(free.<Integer>read("$.ttlMillis")).isEqualTo(-2);
    }

    @Test
    void deleteFreesTheLockWakesItsWaiterPublishesAnEventAndTheHolderLearnsItAtUnlock() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch forced = new CountDownLatch(1);
        Future<Throwable> holder = threads.submit(() -> {
            locker.lock("web-forced");
            held.countDown();
            forced.await();
            try {
                locker.unlock("web-forced");
                return null;
            } catch (LockLostException e) {
                return e;
            }
        });
        assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
        String holderOwner = locker.heldLocks().stream().filter(lock -> lock.key().equals("web-forced")).findFirst().orElseThrow().owner();
        CountDownLatch waiterGotIt = new CountDownLatch(1);
        Future<?> waiter = threads.submit(() -> {
            locker.lock("web-forced");
            waiterGotIt.countDown();
            locker.unlock("web-forced");
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> subscriptions.waiterCount() == 1);

        ResponseEntity<String> response = http.exchange("/actuator/locks/web-forced", HttpMethod.DELETE, null, String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        DocumentContext json = JsonPath.parse(response.getBody());
        assertThat(json.<Boolean>read("$.released")).isTrue();
        assertThat(json.<Map<String, Integer>>read("$.removedHolds")).containsExactly(Map.entry(holderOwner, 1));
        assertThat(waiterGotIt.await(5, TimeUnit.SECONDS)).as("waiter woken and granted the lock").isTrue();
        waiter.get(5, TimeUnit.SECONDS);
        assertThat(app.forceReleases).singleElement().satisfies(event -> {
            assertThat(event.getKey()).isEqualTo("web-forced");
            assertThat(event.getRedisKey()).isEqualTo("lock:web-forced");
            assertThat(event.getRemovedHolds()).containsExactly(Map.entry(holderOwner, 1L));
        });
        forced.countDown();
        assertThat(holder.get(5, TimeUnit.SECONDS)).isInstanceOf(LockLostException.class);
    }

    @Test
    void deleteOfAFreeLockChangesNothingAndPublishesNothing() {
        int eventsBefore = app.forceReleases.size();
        ResponseEntity<String> response = http.exchange("/actuator/locks/web-free", HttpMethod.DELETE, null, String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(JsonPath.parse(response.getBody()).<Boolean>read("$.released")).isFalse();
        assertThat(app.forceReleases).hasSize(eventsBefore);
    }

    @Test
    void deleteRefusesAKeyThatIsNotALockAndLeavesItAlone() {
        TestRedis.shared().command("SET", "lock:web-not-a-lock", "x");
        try {
            ResponseEntity<String> response = http.exchange("/actuator/locks/web-not-a-lock", HttpMethod.DELETE, null, String.class);
            assertThat(response.getStatusCode().is5xxServerError()).isTrue();
            assertThat(TestRedis.shared().command("GET", "lock:web-not-a-lock")).isEqualTo("x");
        } finally {
            TestRedis.shared().command("DEL", "lock:web-not-a-lock");
        }
    }

    private DocumentContext get(String path) {
        ResponseEntity<String> response = http.getForEntity(path, String.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        return JsonPath.parse(response.getBody());
    }
}
