package io.github.redislock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.annotation.AliasFor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Beans with annotated methods, as an application would write them. */
@Configuration(proxyBeanMethods = false)
class AnnotatedServices {

    @Bean
    Stock stock() {
        return new Stock();
    }

    @Bean
    Pricing pricing() {
        return new Pricing();
    }

    @Bean
    Orders orders() {
        return new Orders();
    }

    static class Stock {
        final AtomicInteger runs = new AtomicInteger();
        @Autowired
        Locker observedLocker;
        @Autowired
        @Lazy
        Stock self;

        /** How often a locked method body ran (read through the proxy, so a method and not the field). */
        public int runCount() {
            return runs.get();
        }

        /** Runs {@code criticalSection} under the lock of the sku. */
        @DistributedLock(key = "'stock:' + #sku")
        public void buy(String sku, Runnable criticalSection) {
            criticalSection.run();
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = 200)
        public String reserve(String sku) {
            runs.incrementAndGet();
            return "reserved " + sku;
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = 0, onFailure = LockFailurePolicy.SKIP)
        public String reserveOrSkip(String sku) {
            runs.incrementAndGet();
            return "reserved " + sku;
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = 0, onFailure = LockFailurePolicy.SKIP)
        public Optional<String> findOrSkip(String sku) {
            return Optional.of(sku);
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = 0, fallbackMethod = "reserveLater")
        public String reserveOrFallBack(String sku) {
            return "reserved " + sku;
        }

        String reserveLater(String sku, LockAcquisitionException busy) {
            return "queued " + sku + " because " + busy.getKey() + " was busy";
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = 0, fallbackMethod = "plainFallback")
        public String reserveOrPlainFallBack(String sku) {
            return "reserved " + sku;
        }

        String plainFallback(String sku) {
            return "fallback " + sku;
        }

        @DistributedLock(key = "'stock:' + #p0 + ':' + #a1")
        public String byIndex(String sku, int warehouse) {
            return held("stock:" + sku + ":" + warehouse);
        }

        @DistributedLock(key = "'stock:' + @pricing.region() + ':' + #sku")
        public String byBean(String sku) {
            return held("stock:" + "eu" + ":" + sku);
        }

        @DistributedLock(key = "'${app.lock.namespace}:' + #sku")
        public String byPlaceholder(String sku) {
            return held("configured:" + sku);
        }

        @DistributedLock(key = "#root.methodName + ':' + #root.targetClass.simpleName")
        public String byRoot() {
            return held("byRoot:Stock");
        }

        @DistributedLock(key = "'stock:' + #holder[0]")
        public void mutatesItsArgument(String[] holder) {
            holder[0] = "changed";
        }

        @DistributedLock(key = "'stock:' + #sku")
        public int reentrantOuter(String sku) {
            return self.reentrantInner(sku) + 1;
        }

        @DistributedLock(key = "'stock:' + #sku")
        public int reentrantInner(String sku) {
            return observedLocker.getHoldCount("stock:" + sku);
        }

        /** Runs {@code criticalSection} under the locks of both accounts. */
        @DistributedLock(keys = {"'account:' + #from", "'account:' + #to"})
        public void transfer(String from, String to, Runnable criticalSection) {
            criticalSection.run();
        }

        @DistributedLock(key = "#sku", waitTimeString = "${app.lock.wait:150ms}")
        public String waitsAsConfigured(String sku) {
            return sku;
        }

        private String held(String key) {
            return observedLocker.isHeldByCurrentThread(key) ? "held " + key : "NOT held " + key;
        }
    }

    static class Pricing {
        public String region() {
            return "eu";
        }
    }

    /** An interface whose method carries the annotation; the implementation does not repeat it. */
    interface OrderApi {
        @DistributedLock(key = "'order:' + #orderId")
        String process(String orderId);
    }

    /** A composed annotation of the application's own, carrying @DistributedLock. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @DistributedLock(key = "", waitTime = 0)
    @interface OrderLock {
        @AliasFor(annotation = DistributedLock.class, attribute = "key")
        String value();
    }

    static class Orders implements OrderApi {
        @Autowired
        Locker observedLocker;

        @Override
        public String process(String orderId) {
            return observedLocker.isHeldByCurrentThread("order:" + orderId) ? "locked" : "unlocked";
        }

        @OrderLock("'shipment:' + #orderId")
        public String ship(String orderId) {
            return observedLocker.isHeldByCurrentThread("shipment:" + orderId) ? "locked" : "unlocked";
        }

        @DistributedLock(key = "'async:' + #orderId")
        public CompletableFuture<String> later(String orderId, CompletableFuture<String> result) {
            return result;
        }

        @DistributedLock(key = "'reactive:' + #orderId")
        public Mono<String> monoFor(String orderId, Mono<String> body) {
            return body;
        }

        @DistributedLock(key = "'reactive:' + #orderId")
        public Flux<Integer> fluxFor(String orderId, Flux<Integer> body) {
            return body;
        }

        @DistributedLock(key = "'reactive:' + #orderId", waitTime = 0, onFailure = LockFailurePolicy.SKIP)
        public Mono<String> monoOrSkip(String orderId) {
            return Mono.just("ran");
        }

        @DistributedLock(key = "'reactive:' + #orderId", waitTime = 0)
        public Flux<String> fluxOrThrow(String orderId) {
            return Flux.just("ran");
        }

        @DistributedLock(key = "'async:' + #orderId", waitTime = 0)
        public CompletableFuture<String> laterOrFail(String orderId) {
            return CompletableFuture.completedFuture("ran");
        }
    }
}
