package io.github.redislock.sample;

import java.util.Arrays;

import io.github.redislock.observation.LockNamer;
import io.github.redislock.sample.demo.OversellDemo;
import io.github.redislock.sample.shop.ShopProperties;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The inventory sample: a stock service whose unlocked order endpoint oversells and whose locked one
 * does not. Run with {@code --demo} to see both under load from two instances.
 */
@SpringBootApplication
@EnableConfigurationProperties(ShopProperties.class)
@EnableScheduling
public class SampleApplication {

    public static void main(String[] args) {
        if (Arrays.asList(args).contains(OversellDemo.ARGUMENT)) {
            System.exit(OversellDemo.run(args));
        }
        SpringApplication.run(SampleApplication.class, args);
    }

    /**
     * Names locks taken through the {@code Locker} by what they protect, the part of the key before
     * the first ':' ({@code stock:<sku>} is {@code stock}), so metrics tell them apart without a series
     * per SKU. Keys without a ':' keep the default name rather than becoming a name of their own. An
     * annotated method names its lock itself ({@code @DistributedLock(name = "stock")}).
     */
    @Bean
    LockNamer lockNamer() {
        return key -> {
            int colon = key.indexOf(':');
            return colon > 0 ? key.substring(0, colon) : LockNamer.DEFAULT_NAME;
        };
    }
}
