package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.fixtures.ServerLeg;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * The test-scope switch ({@link LockerFixture#CALLER_CONNECTIONS_PROPERTY}) really puts the fixture's blocking calls
 * on the path the JVM tests: on Lettuce's shared connection, beside the async calls, in the {@code shared-connection}
 * execution, and on a connection of their own elsewhere. Without this check a switch that stopped working would leave
 * that execution running the caller-connection path a second time, and the shared path untested, with every test green.
 */
class TestPathSwitchTest {

    @Test
    void aBlockingPairTakesAConnectionOfItsOwnOnlyOnTheCallerConnectionPath() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            for (int pair = 0; pair < 2; pair++) { // the first loads the scripts (EVAL), the second leaves EVALSHA its connection's last command
                LockHandle handle = instance.async.acquire("async", Duration.ZERO, null).toCompletableFuture().get(5, TimeUnit.SECONDS);
                instance.async.release(handle).toCompletableFuture().get(5, TimeUnit.SECONDS);
            }
            Set<String> async = idsOf(CallerConnectionsTest.clientsWhoseLastCommandWas(redis, "evalsha"));
            assertThat(async).as("the async pair's connection").hasSize(1);

            instance.locker.lock("blocking");
            instance.locker.unlock("blocking");

            Set<String> blockingOnly = idsOf(CallerConnectionsTest.clientsWhoseLastCommandWas(redis, "evalsha"));
            blockingOnly.removeAll(async);
            assertThat(blockingOnly).as("ids of the clients whose last command was EVALSHA, besides the async pair's %s, with %s=%s", async,
                    LockerFixture.CALLER_CONNECTIONS_PROPERTY, LockerFixture.CALLER_CONNECTIONS).hasSize(LockerFixture.CALLER_CONNECTIONS ? 1 : 0);
        }
    }

    /**
     * Both Boot lines run the leg, from the one list, and the leg cannot pass with nothing run: surefire fails an execution
     * that finds no class ({@code failIfNoTests}), {@link ServerLeg} fails every test when the list is empty or unreadable,
     * and here every name of the list is a test class of the shared sources, each pom's execution reads the list, is not
     * skipped by default and turns the caller connections off.
     */
    @Test
    void bothBootLinesRunTheSharedConnectionLegFromTheOneList() throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Path list = root.resolve("lock-autoconfigure/src/test/shared-connection-tests.txt");
        Set<String> testSources;
        try (Stream<Path> files = Files.walk(root.resolve("lock-autoconfigure/src/test/java"))) {
            testSources = files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith("Test.java"))
                    .map(name -> name.substring(0, name.length() - ".java".length())).collect(Collectors.toSet());
        }
        assertThat(ServerLeg.classesListedIn(list)).as("the classes of %s", list).doesNotHaveDuplicates().allSatisfy(
                name -> assertThat(testSources).as("test classes of lock-autoconfigure/src/test/java").contains(name));
        for (String module : new String[] {"lock-autoconfigure", "lock-autoconfigure-boot3"}) {
            Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(root.resolve(module).resolve("pom.xml").toFile());
            XPath xpath = XPathFactory.newInstance().newXPath();
            String execution = "/project/build/plugins/plugin[artifactId='maven-surefire-plugin']/executions/execution[id='shared-connection']/configuration/";
            String listProperty = "systemPropertyVariables/" + ServerLeg.LIST_FILE_PROPERTY;
            assertThat(xpath.evaluate(execution + "includesFile", pom)).as("%s: the leg's includesFile", module).endsWith("/shared-connection-tests.txt");
            assertThat(xpath.evaluate(execution + listProperty, pom)).as("%s: the leg's %s", module, ServerLeg.LIST_FILE_PROPERTY)
                    .isEqualTo(xpath.evaluate(execution + "includesFile", pom));
            assertThat(xpath.evaluate(execution + "failIfNoTests", pom)).as("%s: the leg's failIfNoTests", module).isEqualTo("true");
            assertThat(xpath.evaluate(execution + "skip", pom)).as("%s: the leg's skip", module).isEqualTo("${shared-connection.skip}");
            assertThat(xpath.evaluate("/project/properties/shared-connection.skip", pom)).as("%s: shared-connection.skip", module).isEqualTo("false");
            assertThat(xpath.evaluate(execution + "systemPropertyVariables/" + LockerFixture.CALLER_CONNECTIONS_PROPERTY, pom))
                    .as("%s: the leg's %s", module, LockerFixture.CALLER_CONNECTIONS_PROPERTY).isEqualTo("false");
        }
    }

    /** The {@code id=} field of each CLIENT LIST line: a line's other fields (age, idle, memory) change between two looks. */
    private static Set<String> idsOf(Set<String> clientListLines) {
        return clientListLines.stream().map(line -> line.substring(0, line.indexOf(' '))).collect(Collectors.toCollection(HashSet::new));
    }
}
