package io.github.redislock.core;

import io.github.redislock.fixtures.ContainerRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The lock's behaviour on a server image run by Testcontainers; skipped, with a log line, without Docker. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ContainerContractTest extends LockerContractTest {

    private final ContainerRedis redis;

    ContainerContractTest(String image) {
        this.redis = new ContainerRedis(image);
    }

    @BeforeAll
    void startContainer() {
        redis.start();
    }

    @AfterAll
    void stopContainer() {
        redis.stop();
    }

    @Override
    String redisHost() {
        return redis.host();
    }

    @Override
    int redisPort() {
        return redis.port();
    }
}
