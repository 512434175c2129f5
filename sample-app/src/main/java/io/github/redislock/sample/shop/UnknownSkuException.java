package io.github.redislock.sample.shop;

/** The SKU was never stocked; answered with HTTP 404. */
public class UnknownSkuException extends RuntimeException {

    private final String sku;

    public UnknownSkuException(String sku) {
        super("SKU '" + sku + "' is not stocked; set its stock first with PUT /stock/" + sku + "?quantity=N");
        this.sku = sku;
    }

    public String getSku() {
        return sku;
    }
}
