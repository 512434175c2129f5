package io.github.redislock.sample.shop;

import java.util.List;
import java.util.OptionalLong;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Repository;

/**
 * The shop's books, kept in Redis: per SKU a stock counter and the list of accepted orders.
 *
 * <p>Why Redis: every instance of the service must see the same stock, and the sample already needs a
 * Redis for its locks. Both keys of a SKU share a hash tag ({@code shop:{sku}:...}) so the sale can be
 * written atomically also on a Redis Cluster.
 */
@Repository
public class StockRepository {

    private static final RedisScript<Long> RECORD_SALE = RedisScript.of(
            new ClassPathResource("io/github/redislock/sample/shop/record-sale.lua"), Long.class);

    private final StringRedisTemplate redis;

    public StockRepository(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** Units left, or empty when the SKU was never stocked. */
    public OptionalLong available(String sku) {
        String value = redis.opsForValue().get(stockKey(sku));
        return value == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(value));
    }

    /** Sets the units left; the order history stays. */
    public void setAvailable(String sku, long quantity) {
        redis.opsForValue().set(stockKey(sku), Long.toString(quantity));
    }

    /** Units sold: one per recorded order. */
    public long sold(String sku) {
        Long size = redis.opsForList().size(ordersKey(sku));
        return size == null ? 0 : size;
    }

    /** Writes the new stock and records the order, atomically; it does not check anything. */
    public void recordSale(String sku, long stockLeft, String orderId) {
        redis.execute(RECORD_SALE, List.of(stockKey(sku), ordersKey(sku)), Long.toString(stockLeft), orderId);
    }

    private static String stockKey(String sku) {
        return "shop:{" + sku + "}:stock";
    }

    private static String ordersKey(String sku) {
        return "shop:{" + sku + "}:orders";
    }
}
