package io.github.redislock.sample.shop;

import org.springframework.stereotype.Service;

/** Stock-taking: what a warehouse clerk does, not what customers do. */
@Service
public class StockService {

    private final StockRepository stock;

    public StockService(StockRepository stock) {
        this.stock = stock;
    }

    /** Sets the units available for sale; units sold so far stay on the books. */
    public StockLevel setStock(String sku, long quantity) {
        if (quantity < 0) {
            throw new InvalidRequestException("quantity must be zero or positive, was " + quantity);
        }
        stock.setAvailable(sku, quantity);
        return stockLevel(sku);
    }

    /** Units left and units sold. */
    public StockLevel stockLevel(String sku) {
        long available = stock.available(sku).orElseThrow(() -> new UnknownSkuException(sku));
        return new StockLevel(sku, available, stock.sold(sku));
    }
}
