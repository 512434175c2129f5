package io.github.redislock.core;

/** The official Redis 7 image. */
class Redis7ContainerTest extends ContainerContractTest {

    Redis7ContainerTest() {
        super("redis:7");
    }
}
