package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Independent redis-server processes for the Redlock tests of one class, as a JUnit 5 extension:
 * started before the class's tests, stopped after them (also when a test or a later start failed),
 * and any a test stopped is restarted before the next test, so each starts with every master up.
 * Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedlockMasters masters = new RedlockMasters(3);
 * }</pre>
 *
 * <p>Why separate servers rather than {@link TestRedis#shared()}: the tests stop, restart and pause
 * masters to lose a majority, which must not disturb any other test.
 */
public final class RedlockMasters implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private final int count;
    private final List<RedisServerProcess> servers = new ArrayList<>();

    /** @param count how many masters (Redlock needs at least 3) */
    public RedlockMasters(int count) {
        this.count = count;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (context.getRequiredTestClass().getEnclosingClass() != null && !servers.isEmpty()) {
            return; // a @Nested class runs on its enclosing class's masters
        }
        for (int i = 0; i < count; i++) {
            servers.add(TestRedis.startNew());
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        for (RedisServerProcess server : servers) {
            if (!server.isRunning()) {
                server.restart();
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getRequiredTestClass().getEnclosingClass() != null && context.getParent().flatMap(ExtensionContext::getTestClass).isPresent()) {
            return; // stopped after the enclosing class
        }
        servers.forEach(RedisServerProcess::stop);
        servers.clear();
    }

    /** The masters, in the order of {@link #urls()}. */
    public List<RedisServerProcess> list() {
        return List.copyOf(servers);
    }

    public RedisServerProcess get(int index) {
        return servers.get(index);
    }

    public int size() {
        return servers.size();
    }

    /** Their URLs comma-separated, as {@code redis-lock.redlock.nodes} lists them. */
    public String urls() {
        return servers.stream().map(RedisServerProcess::redisUri).collect(Collectors.joining(","));
    }

    /** How many running masters have {@code redisKey}. */
    public long copiesOf(String redisKey) {
        return servers.stream().filter(RedisServerProcess::isRunning)
                .filter(server -> Long.valueOf(1).equals(server.command("EXISTS", redisKey))).count();
    }
}
