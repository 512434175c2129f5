package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Locker;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestTemplate;

/**
 * A web application closed while a request holds a lock: with graceful shutdown the request finishes
 * first, and its unlock still works, because the lockers close in a lower lifecycle phase than the
 * web server's graceful shutdown (and a higher one than the connection factory's).
 */
class RequestRunningAtShutdownTest {

    private static final String KEY = "request-at-shutdown-" + UUID.randomUUID();

    @Test
    void aRequestRunningWhenTheContextClosesFinishesAndReleasesItsLockBeforeTheLockersClose() throws Exception {
        ConfigurableApplicationContext app = new SpringApplicationBuilder(WebApp.class).properties(
                "server.port=0", "server.shutdown=graceful",
                "spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port()).run();
        try {
            LockingController controller = app.getBean(LockingController.class);
            SmartLifecycle gracefulShutdown = app.getBean("webServerGracefulShutdown", SmartLifecycle.class);
            String url = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + "/work";
            CompletableFuture<ResponseEntity<String>> response = CompletableFuture.supplyAsync(() -> new RestTemplate().getForEntity(url, String.class));
            assertThat(controller.holding.await(10, TimeUnit.SECONDS)).as("the request holds the lock").isTrue();

            CompletableFuture<Void> closing = CompletableFuture.runAsync(app::close);
            await("the web server's graceful shutdown begun").atMost(Duration.ofSeconds(10)).until(() -> !gracefulShutdown.isRunning());
            controller.finish.countDown();

            assertThat(response.get(10, TimeUnit.SECONDS).getBody()).isEqualTo("released");
            closing.get(30, TimeUnit.SECONDS);
            assertThat(TestRedis.shared().command("EXISTS", "lock:" + KEY)).as("the lock's key").isEqualTo(0L);
        } finally {
            app.close();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(LockingController.class)
    static class WebApp {
    }

    @RestController
    static class LockingController {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch finish = new CountDownLatch(1);
        private final Locker locker;

        LockingController(Locker locker) {
            this.locker = locker;
        }

        @GetMapping("/work")
        String work() throws InterruptedException {
            locker.lock(KEY);
            try {
                holding.countDown();
                finish.await(10, TimeUnit.SECONDS);
            } finally {
                locker.unlock(KEY);
            }
            return "released";
        }
    }
}
