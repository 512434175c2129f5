package io.github.redislock.sample.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A crowd of customers buying the same SKU at the same moment, over real HTTP, spread round-robin
 * over the service's instances.
 */
public final class PurchaseRush {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final DemoHttp http = new DemoHttp();
    private final ObjectMapper json = new ObjectMapper();
    private final List<URI> instances;

    /** @param instances the base address of each instance */
    public PurchaseRush(List<URI> instances) {
        if (instances.isEmpty()) {
            throw new IllegalArgumentException("PurchaseRush needs at least one instance to send orders to");
        }
        this.instances = List.copyOf(instances);
    }

    /** What one rush did, counted by the customers and by the shop's books. */
    public record Outcome(String endpoint, long initialStock, int purchases, int accepted, int soldOut,
                          int busy, int failed, long unitsSold, long stockLeft) {

        /** More units promised to customers than there were, or the books show stock below zero. */
        public boolean oversold() {
            return unitsSold > initialStock || accepted > initialStock || stockLeft < 0;
        }
    }

    /**
     * Sets the SKU's stock, fires all purchases at once from one thread each (released together by a
     * latch), waits for every answer and reads the books back.
     *
     * @param endpoint the order path, e.g. {@code /orders/locked}
     */
    public Outcome run(String endpoint, String sku, long initialStock, int purchases) throws InterruptedException {
        setStock(sku, initialStock);
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger soldOut = new AtomicInteger();
        AtomicInteger busy = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService customers = Executors.newFixedThreadPool(purchases);
        try {
            List<Future<?>> answers = new ArrayList<>();
            for (int i = 0; i < purchases; i++) {
                URI instance = instances.get(i % instances.size());
                answers.add(customers.submit(() -> {
                    go.await();
                    int status = order(instance, endpoint, sku);
                    (status == 201 ? accepted : status == 409 ? soldOut : status == 429 ? busy : failed)
                            .incrementAndGet();
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> answer : answers) {
                try {
                    answer.get();
                }
                catch (java.util.concurrent.ExecutionException ex) {
                    failed.incrementAndGet();
                }
            }
        }
        finally {
            customers.shutdownNow();
            customers.awaitTermination(10, TimeUnit.SECONDS);
        }
        JsonNode books = stockLevel(sku);
        return new Outcome(endpoint, initialStock, purchases, accepted.get(), soldOut.get(), busy.get(),
                failed.get(), books.get("sold").asLong(), books.get("available").asLong());
    }

    private int order(URI instance, String endpoint, String sku) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(instance.resolve(endpoint))
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json.createObjectNode().put("sku", sku).toString()))
                .build();
        return http.client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private void setStock(String sku, long quantity) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(instances.get(0).resolve("/stock/" + sku + "?quantity=" + quantity))
                .timeout(REQUEST_TIMEOUT)
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build();
        http.send(request);
    }

    private JsonNode stockLevel(String sku) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(instances.get(instances.size() - 1).resolve("/stock/" + sku))
                .timeout(REQUEST_TIMEOUT)
                .GET()
                .build();
        String answer = http.send(request);
        try {
            return json.readTree(answer);
        }
        catch (JacksonException ex) {
            throw new IllegalStateException("Unreadable answer from GET /stock/" + sku + ": " + answer, ex);
        }
    }
}
