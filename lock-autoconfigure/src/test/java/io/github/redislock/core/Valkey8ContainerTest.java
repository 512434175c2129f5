package io.github.redislock.core;

/** The official Valkey 8 image. */
class Valkey8ContainerTest extends ContainerContractTest {

    Valkey8ContainerTest() {
        super("valkey/valkey:8");
    }
}
