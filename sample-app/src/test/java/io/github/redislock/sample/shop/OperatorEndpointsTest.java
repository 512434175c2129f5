package io.github.redislock.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import tools.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * What an operator of the shop sees over HTTP: the locks this instance holds, the lock health with its
 * details, and the lock metrics in the Prometheus scrape, named by what they protect.
 */
class OperatorEndpointsTest extends ShopHttpTest {

    @Test
    void theLocksEndpointListsALockThisInstanceHoldsAndTheWatchdogState() throws Exception {
        locker.lock("stock:" + sku);
        try {
            ResponseEntity<String> response = http.getForEntity("/actuator/locks", String.class);

            assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
            JsonNode held = heldLock(body(response), "stock:" + sku);
            assertThat(held).as("the held lock in " + response.getBody()).isNotNull();
            assertThat(held.get("redisKey").asText()).isEqualTo("sample-lock:stock:" + sku);
            assertThat(held.get("kind").asText()).isEqualTo("reentrant");
            assertThat(held.get("holdCount").asLong()).isEqualTo(1);
            assertThat(held.get("thread").asText()).isEqualTo(Thread.currentThread().getName());
            assertThat(held.get("renewedByWatchdog").asBoolean()).isTrue();
            assertThat(held.get("lost").asBoolean()).isFalse();
            assertThat(held.get("leaseRemainingMillis").asLong()).isBetween(1L, 30_000L);
            assertThat(held.hasNonNull("heldSince")).isTrue();
            JsonNode watchdog = body(response).get("watchdog");
            assertThat(watchdog.get("timeoutMillis").asLong()).isEqualTo(30_000);
            assertThat(watchdog.get("watchedLocks").asInt()).isPositive();
            assertThat(watchdog.get("consecutiveFailures").asInt()).isZero();
        }
        finally {
            locker.unlock("stock:" + sku);
        }
        assertThat(heldLock(body(http.getForEntity("/actuator/locks", String.class)), "stock:" + sku))
                .as("released locks are no longer listed").isNull();
    }

    @Test
    void theLocksEndpointShowsAnyLockAsRedisHasIt() throws Exception {
        locker.lock("stock:" + sku);
        try {
            JsonNode state = body(http.getForEntity("/actuator/locks/stock:" + sku, String.class));

            assertThat(state.get("redisKey").asText()).isEqualTo("sample-lock:stock:" + sku);
            assertThat(state.get("type").asText()).isEqualTo("hash");
            assertThat(state.get("holds").size()).isEqualTo(1);
            assertThat(state.get("holds").iterator().next().asLong()).isEqualTo(1);
            assertThat(state.get("ttlMillis").asLong()).isBetween(1L, 30_000L);
        }
        finally {
            locker.unlock("stock:" + sku);
        }
    }

    @Test
    void forceReleaseIsSwitchedOffInTheSample() {
        ResponseEntity<String> response = http.exchange("/actuator/locks/stock:" + sku, HttpMethod.DELETE, null, String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
    }

    @Test
    void theLockHealthIsUpWithItsDetails() throws Exception {
        ResponseEntity<String> response = http.getForEntity("/actuator/health/redisLock", String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        JsonNode health = body(response);
        assertThat(health.get("status").asText()).isEqualTo("UP");
        JsonNode details = health.get("details");
        assertThat(details.get("watchdogTimeoutMillis").asLong()).isEqualTo(30_000);
        assertThat(details.has("watchedLocks")).isTrue();
        assertThat(details.get("consecutiveFailures").asInt()).isZero();
        assertThat(details.has("locksAtRisk")).isFalse();
    }

    @Test
    void theOverallHealthShowsTheLockHealthAmongItsComponents() throws Exception {
        JsonNode health = body(http.getForEntity("/actuator/health", String.class));

        assertThat(health.get("status").asText()).isEqualTo("UP");
        assertThat(health.at("/components/redisLock/status").asText()).isEqualTo("UP");
        assertThat(health.at("/components/redis/status").asText()).isEqualTo("UP");
    }

    @Test
    void aLockedOrderIsCountedInThePrometheusScrapeUnderTheLockNameStock() {
        setStock(1);
        assertThat(order("locked", sku).getStatusCode()).isEqualTo(HttpStatus.CREATED);

        String scrape = http.getForObject("/actuator/prometheus", String.class);

        assertThat(scrape).containsPattern(
                "(?m)^redis_lock_acquire_seconds_count\\{[^}]*lock_name=\"stock\"[^}]*lock_result=\"acquired\"[^}]*} [1-9]");
        assertThat(scrape).containsPattern("(?m)^redis_lock_hold_seconds_count\\{[^}]*lock_name=\"stock\"[^}]*} [1-9]");
        assertThat(scrape).containsPattern("(?m)^redis_lock_held ").containsPattern("(?m)^redis_lock_waiters ");
        assertThat(lockMetricLines(scrape)).as("no SKU in a lock metric").noneMatch(line -> line.contains(sku));
    }

    @Test
    void aLockTakenThroughTheLockerIsNamedByThePartOfItsKeyBeforeTheFirstColon() {
        locker.lock("restock:" + sku);
        locker.unlock("restock:" + sku);

        String scrape = http.getForObject("/actuator/prometheus", String.class);

        assertThat(scrape).containsPattern("(?m)^redis_lock_acquire_seconds_count\\{[^}]*lock_name=\"restock\"[^}]*} [1-9]");
        assertThat(lockMetricLines(scrape)).as("no SKU in a lock metric").noneMatch(line -> line.contains(sku));
    }

    /** The scrape also holds the test client's own request metrics, whose URIs do name the SKU. */
    private static List<String> lockMetricLines(String scrape) {
        return scrape.lines().filter(line -> line.startsWith("redis_lock_")).toList();
    }

    private static JsonNode heldLock(JsonNode locks, String key) {
        for (JsonNode lock : locks.get("locks")) {
            if (lock.get("key").asText().equals(key)) {
                return lock;
            }
        }
        return null;
    }
}
