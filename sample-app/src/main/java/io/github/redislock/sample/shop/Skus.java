package io.github.redislock.sample.shop;

import java.util.regex.Pattern;

/** The shape of a SKU, checked where requests come in so nothing else sees a malformed one. */
final class Skus {

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private Skus() {
    }

    /** Returns the SKU if it is 1 to 64 letters, digits, '.', '_' or '-' (starting with a letter or digit). */
    static String requireValid(String sku) {
        if (sku == null || !VALID.matcher(sku).matches()) {
            throw new InvalidRequestException("Invalid SKU '" + sku + "': use 1 to 64 letters, digits, '.', '_' or '-', "
                    + "starting with a letter or digit");
        }
        return sku;
    }
}
