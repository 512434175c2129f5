package io.github.redislock.sample.shop;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executor;

import io.github.redislock.ReactiveLocker;
import io.github.redislock.annotation.DistributedLock;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

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
    private final ReactiveLocker reactiveLocker;
    private final Scheduler saleScheduler;
    private final Duration readWriteDelay;
    private final Duration orderLockWait;

    /**
     * @param taskExecutor Spring Boot's application task executor, which runs the blocking sale of a
     *                     reactive order: a pool the application context starts and stops
     */
    public OrderService(StockRepository stock, ReactiveLocker reactiveLocker, @Qualifier("applicationTaskExecutor") Executor taskExecutor,
                        ShopProperties properties) {
        this.stock = stock;
        this.reactiveLocker = reactiveLocker;
        this.saleScheduler = Schedulers.fromExecutor(taskExecutor);
        this.readWriteDelay = properties.getReadWriteDelay();
        this.orderLockWait = properties.getOrderLockWait();
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
     * Sells one unit under the same lock as {@link #placeOrder}, taken with the {@link ReactiveLocker}: an
     * order waiting for its SKU holds no thread (the lock's queue and release message stand in for one).
     * The sale itself blocks (Redis calls, the order's work), so it runs on the application's task
     * executor, one SKU's sale at a time, never on the lock's own threads; {@code withLock} releases the lock when it completes or fails,
     * or when the request is abandoned.
     *
     * @return the order; errors as {@link #placeOrder} throws
     */
    public Mono<Order> placeOrderReactively(String sku) {
        return reactiveLocker.withLock("stock:" + sku, orderLockWait,
                Mono.fromCallable(() -> sellOneUnit(sku)).subscribeOn(saleScheduler));
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
