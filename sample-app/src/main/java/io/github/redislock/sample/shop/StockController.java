package io.github.redislock.sample.shop;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code PUT /stock/{sku}?quantity=N} sets the stock; {@code GET /stock/{sku}} shows stock left and units sold. */
@RestController
@RequestMapping("/stock")
class StockController {

    private final StockService stockService;

    StockController(StockService stockService) {
        this.stockService = stockService;
    }

    @PutMapping("/{sku}")
    StockLevel setStock(@PathVariable String sku, @RequestParam long quantity) {
        return stockService.setStock(Skus.requireValid(sku), quantity);
    }

    @GetMapping("/{sku}")
    StockLevel stockLevel(@PathVariable String sku) {
        return stockService.stockLevel(Skus.requireValid(sku));
    }
}
