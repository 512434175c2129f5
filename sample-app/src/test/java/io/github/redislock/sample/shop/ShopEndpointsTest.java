package io.github.redislock.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/** The shop's HTTP API, one instance. */
class ShopEndpointsTest extends ShopHttpTest {

    @Test
    void settingTheStockAnswersTheNewStockLevel() throws Exception {
        ResponseEntity<String> response = http.exchange("/stock/" + sku + "?quantity=7", HttpMethod.PUT, null, String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(body(response).get("available").asLong()).isEqualTo(7);
        assertThat(body(response).get("sold").asLong()).isZero();
    }

    @Test
    void aLockedOrderSellsOneUnitAndTheStockShowsIt() throws Exception {
        setStock(3);

        ResponseEntity<String> order = order("locked", sku);

        assertThat(order.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(body(order).get("sku").asText()).isEqualTo(sku);
        assertThat(body(order).get("stockLeft").asLong()).isEqualTo(2);
        JsonNode level = body(http.getForEntity("/stock/" + sku, String.class));
        assertThat(level.get("available").asLong()).isEqualTo(2);
        assertThat(level.get("sold").asLong()).isEqualTo(1);
    }

    @Test
    void aReactiveOrderSellsOneUnitAndTheStockShowsIt() throws Exception {
        setStock(3);

        ResponseEntity<String> order = order("reactive", sku);

        assertThat(order.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(body(order).get("stockLeft").asLong()).isEqualTo(2);
        assertThat(body(http.getForEntity("/stock/" + sku, String.class)).get("sold").asLong()).isEqualTo(1);
        assertThat(locker.isLocked("stock:" + sku)).isFalse();
    }

    @Test
    void anUnsafeOrderSellsOneUnitWhenAlone() throws Exception {
        setStock(1);

        ResponseEntity<String> order = order("unsafe", sku);

        assertThat(order.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(body(order).get("stockLeft").asLong()).isZero();
    }

    @Test
    void anOrderForASoldOutSkuIsRefusedWith409ProblemJson() throws Exception {
        setStock(0);

        for (String endpoint : new String[] {"locked", "reactive", "unsafe"}) {
            ResponseEntity<String> order = order(endpoint, sku);

            assertThat(order.getStatusCode()).as(endpoint).isEqualTo(HttpStatus.CONFLICT);
            assertThat(order.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
            assertThat(body(order).get("title").asText()).isEqualTo("Sold out");
            assertThat(body(order).get("sku").asText()).isEqualTo(sku);
        }
    }

    @Test
    void anOrderOfEitherLockedEndpointThatFindsItsSkuBusyForTheWholeWaitIsRefusedWith429AndRetryAfter() throws Exception {
        setStock(5);
        locker.lock("stock:" + sku);
        try {
            for (String endpoint : new String[] {"locked", "reactive"}) {
                ResponseEntity<String> order = order(endpoint, sku);

                assertThat(order.getStatusCode()).as(endpoint).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
                assertThat(order.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
                assertThat(order.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
                assertThat(body(order).get("lockKey").asText()).isEqualTo("stock:" + sku);
                assertThat(body(order).get("waited").asText()).isEqualTo("PT0.3S");
            }
        }
        finally {
            locker.unlock("stock:" + sku);
        }
        assertThat(body(http.getForEntity("/stock/" + sku, String.class)).get("available").asLong()).isEqualTo(5);
    }

    @Test
    void anOrderForAnUnknownSkuIs404() throws Exception {
        ResponseEntity<String> order = order("locked", sku);

        assertThat(order.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(body(order).get("detail").asText()).contains(sku, "PUT /stock/");
    }

    @Test
    void aMalformedSkuIs400AndNamesTheProblem() throws Exception {
        ResponseEntity<String> order = order("locked", "no spaces allowed");

        assertThat(order.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(body(order).get("detail").asText()).contains("Invalid SKU 'no spaces allowed'");
    }

    @Test
    void aNegativeQuantityIs400() throws Exception {
        ResponseEntity<String> response = http.exchange("/stock/" + sku + "?quantity=-1", HttpMethod.PUT, null, String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(body(response).get("detail").asText()).contains("quantity", "-1");
    }

    @Test
    void aMissingQuantityIs400ProblemJson() {
        ResponseEntity<String> response = http.exchange("/stock/" + sku, HttpMethod.PUT, null, String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    }

    @Test
    void metricsAreExposedForPrometheus() {
        ResponseEntity<String> response = http.getForEntity("/actuator/prometheus", String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(response.getBody()).contains("jvm_memory_used_bytes");
    }
}
