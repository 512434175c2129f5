package io.github.redislock.sample.shop;

/**
 * An accepted order for one unit.
 *
 * @param id the order's identifier
 * @param sku the product bought
 * @param quantity units bought (always 1 in this sample)
 * @param stockLeft the stock this order wrote back
 */
public record Order(String id, String sku, int quantity, long stockLeft) {
}
