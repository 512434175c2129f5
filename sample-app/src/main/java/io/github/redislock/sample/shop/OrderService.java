package io.github.redislock.sample.shop;

import java.time.Duration;
import java.util.UUID;

import io.github.redislock.annotation.DistributedLock;

import org.springframework.stereotype.Service;

/**
 * Takes orders: read the stock, check it, do the work an order needs, write the stock back.
 *
 * <p>The same steps run twice: once as most code is first written ({@link #placeOrderWithoutLock}), and
 * once under a distributed lock on the SKU ({@link #placeOrder}). Without the lock, every request that
 * reads the stock before another one writes it sees the same number, so several of them sell the same
 * unit: the shop accepts more orders than it has stock.
 */
@Service
public class OrderService {

    private final StockRepository stock;
    private final Duration readWriteDelay;

    public OrderService(StockRepository stock, ShopProperties properties) {
        this.stock = stock;
        this.readWriteDelay = properties.getReadWriteDelay();
    }

    /**
     * Sells one unit, one order per SKU at a time across every instance of the service.
     *
     * @throws SoldOutException when no stock is left
     * @throws UnknownSkuException when the SKU was never stocked
     * @throws io.github.redislock.LockAcquisitionException when other orders for the SKU kept the lock
     *     for all of {@code sample.order-lock-wait}
     */
    @DistributedLock(key = "'stock:' + #sku", name = "stock", waitTimeString = "${sample.order-lock-wait:10s}")
    public Order placeOrder(String sku) {
        return sellOneUnit(sku);
    }

    /**
     * Sells one unit with a plain read-check-write: concurrent orders oversell. Kept to show why
     * {@link #placeOrder} needs its lock.
     *
     * @throws SoldOutException when no stock is left (as far as this request saw)
     * @throws UnknownSkuException when the SKU was never stocked
     */
    public Order placeOrderWithoutLock(String sku) {
        return sellOneUnit(sku);
    }

    private Order sellOneUnit(String sku) {
        long available = stock.available(sku).orElseThrow(() -> new UnknownSkuException(sku));
        if (available < 1) {
            throw new SoldOutException(sku);
        }
        doTheWorkAnOrderNeeds();
        Order order = new Order(UUID.randomUUID().toString(), sku, 1, available - 1);
        stock.recordSale(sku, order.stockLeft(), order.id());
        return order;
    }

    /** Stands in for pricing, payment and warehouse calls: the time between reading and writing the stock. */
    private void doTheWorkAnOrderNeeds() {
        if (readWriteDelay.isZero()) {
            return;
        }
        try {
            Thread.sleep(readWriteDelay.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while processing an order", ex);
        }
    }
}
