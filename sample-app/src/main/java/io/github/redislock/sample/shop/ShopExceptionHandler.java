package io.github.redislock.sample.shop;

import io.github.redislock.LockAcquisitionException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns the shop's refusals into RFC 9457 problem JSON ({@code application/problem+json}); the base
 * class does the same for Spring MVC's own errors (missing parameter, unreadable body).
 *
 * <p>Sold out is 409 Conflict: the order contradicts the stock, and retrying will not help. A lock that
 * stayed busy for the whole wait is 429 Too Many Requests with {@code Retry-After}: the SKU is merely
 * busy with other orders, and the same request may well succeed a moment later. Keeping the two apart
 * lets a client retry the one and not the other without parsing the body.
 */
@RestControllerAdvice
class ShopExceptionHandler extends ResponseEntityExceptionHandler {

    /** Seconds a client is asked to wait before retrying an order that found its SKU busy. */
    private static final String RETRY_AFTER_SECONDS = "1";

    @ExceptionHandler
    ProblemDetail soldOut(SoldOutException ex) {
        return problem(HttpStatus.CONFLICT, "Sold out", ex.getMessage(), "sku", ex.getSku());
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> lockBusy(LockAcquisitionException ex) {
        ProblemDetail problem = problem(HttpStatus.TOO_MANY_REQUESTS, "Item busy",
                "Too many concurrent orders for the same item; retry shortly", "lockKey", ex.getKey());
        problem.setProperty("waited", ex.getWaitTime().toString());
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .body(problem);
    }

    @ExceptionHandler
    ProblemDetail unknownSku(UnknownSkuException ex) {
        return problem(HttpStatus.NOT_FOUND, "Unknown SKU", ex.getMessage(), "sku", ex.getSku());
    }

    @ExceptionHandler
    ProblemDetail invalidRequest(InvalidRequestException ex) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid request", ex.getMessage(), null, null);
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail, String property, Object value) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        if (property != null) {
            problem.setProperty(property, value);
        }
        return problem;
    }
}
