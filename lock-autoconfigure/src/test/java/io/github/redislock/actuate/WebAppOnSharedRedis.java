package io.github.redislock.actuate;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.DefaultResponseErrorHandler;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.util.DefaultUriBuilderFactory;
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

    @LocalServerPort
    int port;

    /**
     * A plain RestTemplate on the application's port that returns error statuses instead of throwing:
     * Boot's TestRestTemplate moved between Boot 3.5 and 4, and these tests run on both.
     */
    RestTemplate http;

    @BeforeEach
    void httpClient() {
        http = new RestTemplate();
        http.setUriTemplateHandler(new DefaultUriBuilderFactory("http://127.0.0.1:" + port));
        http.setErrorHandler(new DefaultResponseErrorHandler() {
            @Override
            public boolean hasError(ClientHttpResponse response) {
                return false;
            }
        });
    }

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
