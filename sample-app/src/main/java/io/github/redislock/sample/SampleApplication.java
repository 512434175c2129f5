package io.github.redislock.sample;

import java.util.Arrays;

import io.github.redislock.sample.demo.OversellDemo;
import io.github.redislock.sample.shop.ShopProperties;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The inventory sample: a stock service whose unlocked order endpoint oversells and whose locked one
 * does not. Run with {@code --demo} to see both under load from two instances.
 */
@SpringBootApplication
@EnableConfigurationProperties(ShopProperties.class)
public class SampleApplication {

    public static void main(String[] args) {
        if (Arrays.asList(args).contains(OversellDemo.ARGUMENT)) {
            System.exit(OversellDemo.run(args));
        }
        SpringApplication.run(SampleApplication.class, args);
    }
}
