package io.github.redislock.sample.shop;

/** A request the shop refuses to process (bad SKU, negative quantity); answered with HTTP 400. */
public class InvalidRequestException extends RuntimeException {

    public InvalidRequestException(String message) {
        super(message);
    }
}
