package io.github.redislock.sample.shop;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * {@code POST /orders/locked}, {@code POST /orders/reactive} and {@code POST /orders/unsafe} with a body
 * {@code {"sku": "..."}} buy one unit and answer 201 with the order. The reactive one returns a
 * {@link Mono}, which Spring MVC answers asynchronously: its request thread goes back to the pool while
 * the order waits for the SKU's lock.
 */
@RestController
@RequestMapping("/orders")
class OrderController {

    /** The body of an order request. */
    record OrderRequest(String sku) {
    }

    private final OrderService orderService;

    OrderController(OrderService orderService) {
        this.orderService = orderService;
    }

    @PostMapping("/locked")
    @ResponseStatus(HttpStatus.CREATED)
    Order placeOrder(@RequestBody OrderRequest request) {
        return orderService.placeOrder(Skus.requireValid(request.sku()));
    }

    @PostMapping("/reactive")
    @ResponseStatus(HttpStatus.CREATED)
    Mono<Order> placeOrderReactively(@RequestBody OrderRequest request) {
        return orderService.placeOrderReactively(Skus.requireValid(request.sku()));
    }

    @PostMapping("/unsafe")
    @ResponseStatus(HttpStatus.CREATED)
    Order placeOrderWithoutLock(@RequestBody OrderRequest request) {
        return orderService.placeOrderWithoutLock(Skus.requireValid(request.sku()));
    }
}
