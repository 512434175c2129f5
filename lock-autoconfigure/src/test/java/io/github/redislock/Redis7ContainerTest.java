package io.github.redislock;

/** The official Redis 7 image. */
class Redis7ContainerTest extends ContainerContractTest {

    Redis7ContainerTest() {
        super("redis:7");
    }
}
