package io.github.redislock.docs;

import java.util.concurrent.CompletionStage;

import io.github.redislock.AsyncLocker;
import io.github.redislock.Locker;
import io.github.redislock.ReactiveLocker;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the manual's Java snippets take for granted: the application's own types and the variables a
 * fragment uses without declaring them. Every snippet is compiled inside a subclass of this class
 * ({@link JavaSnippetsCompileTest}), so a snippet may use these names, and only these, as given.
 * Add a name here when a new snippet needs one; keep the list to what reads naturally in a snippet.
 */
@SuppressWarnings("unused")
public abstract class SnippetScaffold {

    // The library's beans, as a snippet's class would have them injected.
    protected Locker locker;
    protected AsyncLocker asyncLocker;
    protected ReactiveLocker reactiveLocker;
    protected RedisConnectionFactory connectionFactory;

    // The application's collaborators.
    protected JdbcTemplate jdbc;
    protected StockRepository stock;
    protected OrderService orders;
    protected Payments payments;
    protected Database db;

    // Values a fragment of statements works with.
    protected String sku;
    protected String id;
    protected String from;
    protected String to;
    protected int qty;
    protected long newBalance;

    protected Order createOrder(String sku) {
        return new Order(sku);
    }

    public record Order(String sku) {
    }

    public record Receipt(String order) {
    }

    public record Row(String sku, int quantity) {
    }

    public record Entry(String account, long amount) {
    }

    public interface StockRepository {
        Mono<Order> sellOne(String sku);
    }

    public interface OrderService {
        Order place(String sku, int quantity);
    }

    public interface Payments {
        CompletionStage<Receipt> charge(String order);
    }

    public interface Database {
        Mono<Void> update(Row row, long fencingToken);
    }

    public interface CheckoutService {
        void buy(String orderId);
    }
}
