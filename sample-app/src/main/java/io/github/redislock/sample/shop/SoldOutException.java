package io.github.redislock.sample.shop;

/** The SKU has no stock left; answered with HTTP 409. */
public class SoldOutException extends RuntimeException {

    private final String sku;

    public SoldOutException(String sku) {
        super("SKU '" + sku + "' is sold out");
        this.sku = sku;
    }

    public String getSku() {
        return sku;
    }
}
