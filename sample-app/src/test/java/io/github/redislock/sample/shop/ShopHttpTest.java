package io.github.redislock.sample.shop;

import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import io.github.redislock.Locker;

import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * One running instance of the shop over real HTTP, on the Redis the sample starts itself when none is
 * configured ({@code @DynamicPropertySource} values arrive after that decision is made, so pointing
 * these tests at the shared test Redis that way would start an embedded one needlessly). Every
 * subclass shares the one application context; each test gets a SKU of its own.
 */
@AutoConfigureMetrics
@AutoConfigureTestRestTemplate
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "sample.read-write-delay=0ms", "sample.order-lock-wait=300ms"})
abstract class ShopHttpTest {

    @Autowired
    TestRestTemplate http;

    @Autowired
    Locker locker;

    final ObjectMapper json = new ObjectMapper();

    String sku;

    @BeforeEach
    void newSku() {
        sku = "sku-" + UUID.randomUUID();
    }

    void setStock(long quantity) {
        http.exchange("/stock/" + sku + "?quantity=" + quantity, HttpMethod.PUT, null, String.class);
    }

    ResponseEntity<String> order(String endpoint, String orderedSku) {
        HttpHeaders headers = new HttpHeaders();
        headers.setContentType(MediaType.APPLICATION_JSON);
        String body = json.createObjectNode().put("sku", orderedSku).toString();
        return http.postForEntity("/orders/" + endpoint, new HttpEntity<>(body, headers), String.class);
    }

    JsonNode body(ResponseEntity<String> response) throws Exception {
        return json.readTree(response.getBody());
    }
}
