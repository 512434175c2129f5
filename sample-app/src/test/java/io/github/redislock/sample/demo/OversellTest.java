package io.github.redislock.sample.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;

import io.github.redislock.sample.demo.PurchaseRush.Outcome;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The demonstration's claim, as a test: two instances sharing one Redis, a crowd buying the same SKU
 * over HTTP. Margins are wide: 200 simultaneous buyers for 40 units with a 50 ms read-write window
 * oversell by far more than one unit, and the locked endpoint waits up to 60 s for its turn.
 */
class OversellTest {

    static final long STOCK = 40;
    static final int PURCHASES = 200;

    static TwoInstances instances;
    static PurchaseRush rush;

    @BeforeAll
    static void startTwoInstances() {
        instances = TwoInstances.start(
                "--spring.data.redis.host=" + TestRedis.shared().host(),
                "--spring.data.redis.port=" + TestRedis.shared().port(),
                "--sample.read-write-delay=50ms",
                "--sample.order-lock-wait=60s");
        rush = new PurchaseRush(instances.baseUris());
    }

    @AfterAll
    static void stopThem() {
        if (instances != null) {
            instances.close();
        }
    }

    @Test
    void theLockedEndpointSellsExactlyTheStockAcrossTwoInstances() throws InterruptedException {
        Outcome outcome = rush.run("/orders/locked", "locked-" + UUID.randomUUID(), STOCK, PURCHASES);

        assertThat(outcome.accepted()).isEqualTo(STOCK);
        assertThat(outcome.unitsSold()).isEqualTo(STOCK);
        assertThat(outcome.stockLeft()).isZero();
        assertThat(outcome.soldOut()).isEqualTo(PURCHASES - STOCK);
        assertThat(outcome.oversold()).isFalse();
    }

    @Test
    void theReactiveEndpointSellsExactlyTheStockAcrossTwoInstances() throws InterruptedException {
        Outcome outcome = rush.run("/orders/reactive", "reactive-" + UUID.randomUUID(), STOCK, PURCHASES);

        assertThat(outcome.failed()).isZero();
        assertThat(outcome.accepted()).isEqualTo(STOCK);
        assertThat(outcome.unitsSold()).isEqualTo(STOCK);
        assertThat(outcome.stockLeft()).isZero();
        assertThat(outcome.soldOut()).isEqualTo(PURCHASES - STOCK);
        assertThat(outcome.oversold()).isFalse();
    }

    @Test
    void anOperatorWatchingTheLockedRushSeesTheLockHeldThenHealthAndCountedAcquisitions() throws Exception {
        String sku = "watched-" + UUID.randomUUID();
        OperatorView operator = new OperatorView(instances.baseUris().get(0));

        OperatorView.Watched<Outcome> watched = operator.watch(() -> rush.run("/orders/locked", sku, STOCK, PURCHASES));

        OperatorView.Excerpt excerpt = watched.excerpt();
        assertThat(watched.result().unitsSold()).isEqualTo(STOCK);
        assertThat(excerpt.locksDuring()).as("the locks endpoint during the rush")
                .contains("\"key\" : \"stock:" + sku + "\"", "\"renewedByWatchdog\" : true");
        assertThat(excerpt.gaugesDuring()).anyMatch(line -> line.startsWith("redis_lock_waiters "));
        assertThat(excerpt.healthAfter()).contains("\"status\" : \"UP\"", "\"watchdogTimeoutMillis\"");
        assertThat(excerpt.metricsAfter()).anyMatch(line -> line.startsWith("redis_lock_acquire_seconds_count{")
                && line.contains("lock_name=\"stock\"") && line.contains("lock_result=\"acquired\""));
        assertThat(OperatorView.format(excerpt)).contains("GET /actuator/locks", "GET /actuator/health/redisLock");
    }

    @Test
    void theUnsafeEndpointOversellsAcrossTwoInstances() throws InterruptedException {
        Outcome outcome = rush.run("/orders/unsafe", "unsafe-" + UUID.randomUUID(), STOCK, PURCHASES);

        assertThat(outcome.failed()).isZero();
        assertThat(outcome.accepted()).isGreaterThan((int) STOCK);
        assertThat(outcome.unitsSold()).isEqualTo(outcome.accepted());
        assertThat(outcome.oversold()).isTrue();
    }
}
