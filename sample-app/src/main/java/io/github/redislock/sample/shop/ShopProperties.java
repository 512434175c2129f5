package io.github.redislock.sample.shop;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the sample shop ({@code sample.*}). */
@ConfigurationProperties("sample")
public class ShopProperties {

    /**
     * Pause between reading the stock and writing it back, standing in for the work a real shop does
     * in between (pricing, payment authorisation, a call to the warehouse). It is the window in which
     * concurrent unlocked orders read the same stock; zero disables it.
     */
    private Duration readWriteDelay = Duration.ofMillis(20);

    /**
     * How long an order on the locked endpoint waits for the SKU's lock before it is answered with
     * HTTP 429. Read by the {@code @DistributedLock} on {@link OrderService#placeOrder(String)} and by
     * {@link OrderService#placeOrderReactively(String)}.
     */
    private Duration orderLockWait = Duration.ofSeconds(10);

    public Duration getReadWriteDelay() {
        return readWriteDelay;
    }

    public void setReadWriteDelay(Duration readWriteDelay) {
        if (readWriteDelay == null || readWriteDelay.isNegative()) {
            throw new IllegalArgumentException("sample.read-write-delay must be zero or positive, was " + readWriteDelay);
        }
        this.readWriteDelay = readWriteDelay;
    }

    public Duration getOrderLockWait() {
        return orderLockWait;
    }

    public void setOrderLockWait(Duration orderLockWait) {
        if (orderLockWait == null || orderLockWait.isNegative()) {
            throw new IllegalArgumentException("sample.order-lock-wait must be zero or positive, was " + orderLockWait);
        }
        this.orderLockWait = orderLockWait;
    }
}
