package io.github.redislock.sample.shop;

/**
 * What the shop's books say about one SKU.
 *
 * @param sku the product
 * @param available units left to sell
 * @param sold units sold since the SKU was first stocked (one per recorded order)
 */
public record StockLevel(String sku, long available, long sold) {
}
