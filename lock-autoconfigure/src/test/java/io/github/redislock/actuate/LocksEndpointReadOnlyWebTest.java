package io.github.redislock.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.Locker;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/** The locks endpoint over real HTTP with the default settings: force-release does not exist. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WebAppOnSharedRedis.App.class,
        properties = {"management.endpoints.web.exposure.include=locks,health", "management.endpoint.health.show-details=always"})
class LocksEndpointReadOnlyWebTest extends WebAppOnSharedRedis {


    @Autowired
    Locker locker;

    @Test
    void deleteIsRefusedByDefaultAndTheLockStaysHeld() {
        locker.lock("web-readonly");
        try {
            ResponseEntity<String> response = http.exchange("/actuator/locks/web-readonly", HttpMethod.DELETE, null, String.class);

            assertThat(response.getStatusCode()).isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
            assertThat(locker.isHeldByCurrentThread("web-readonly")).isTrue();
        } finally {
            locker.unlock("web-readonly");
        }
    }

    @Test
    void aKeyTheLocksRefuseIsABadRequest() {
        ResponseEntity<String> response = http.getForEntity("/actuator/locks/" + "k".repeat(1025), String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
    }

    @Test
    void theHealthEndpointIncludesRedisLock() {
        ResponseEntity<String> response = http.getForEntity("/actuator/health/redisLock", String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(response.getBody()).contains("\"status\":\"UP\"").contains("\"watchdogTimeoutMillis\":30000");
    }
}
