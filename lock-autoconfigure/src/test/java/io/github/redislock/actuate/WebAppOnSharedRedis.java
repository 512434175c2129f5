package io.github.redislock.actuate;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.testsupport.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.web.client.TestRestTemplate;
import org.springframework.context.event.EventListener;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** A whole web application with every auto-configuration on the test classpath, on the shared test Redis, called over HTTP. */
abstract class WebAppOnSharedRedis {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> TestRedis.shared().host());
        registry.add("spring.data.redis.port", () -> TestRedis.shared().port());
    }

    @Autowired
    TestRestTemplate http;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        final List<LockForceReleasedEvent> forceReleases = new CopyOnWriteArrayList<>();

        @EventListener
        void onForceRelease(LockForceReleasedEvent event) {
            forceReleases.add(event);
        }
    }
}
