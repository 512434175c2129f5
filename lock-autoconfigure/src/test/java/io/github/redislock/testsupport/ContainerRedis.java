package io.github.redislock.testsupport;

import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * A Redis-compatible server image run by Testcontainers, for suites that must hold on every server
 * we support. Without a Docker engine the suite is skipped, and a log line says so.
 */
public final class ContainerRedis {

    private static final System.Logger log = System.getLogger(ContainerRedis.class.getName());
    private static final int REDIS_PORT = 6379;

    private final String image;
    private GenericContainer<?> container;

    public ContainerRedis(String image) {
        this.image = image;
    }

    /** Starts the image, or skips the calling test class when Docker cannot run it here. */
    public void start() {
        boolean docker;
        try {
            docker = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            docker = false;
        }
        if (!docker) {
            log.log(System.Logger.Level.WARNING, "No Docker engine available: skipping the contract suite on image " + image
                    + " (the same suite runs on a local redis-server process)");
        }
        Assumptions.assumeTrue(docker, "Docker is not available to run " + image);
        container = new GenericContainer<>(image).withExposedPorts(REDIS_PORT);
        container.start();
    }

    public String host() {
        return container.getHost();
    }

    public int port() {
        return container.getMappedPort(REDIS_PORT);
    }

    public void stop() {
        if (container != null) {
            container.stop();
        }
    }
}
