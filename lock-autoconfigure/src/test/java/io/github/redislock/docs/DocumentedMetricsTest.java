package io.github.redislock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.LockLostException;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockObservationAutoConfiguration;
import io.github.redislock.core.Internals;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The metric table of docs/observability.md is what a real registry holds after real lock operations:
 * every {@code redis.lock.*} meter has a row, and every row's type and tag keys are the meter's. A meter
 * renamed, added or given another tag in the code without its row fails the build.
 */
class DocumentedMetricsTest {

    /** A row: the metric in backticks, its type, its tags (each tag in backticks, its values in parentheses after it). */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`(redis\\.lock[^`]*)`\\s*\\|\\s*([^|]+?)\\s*\\|\\s*([^|]*?)\\s*\\|.*");
    private static final Pattern TAG = Pattern.compile("`([^`]+)`");
    private static final Map<String, Class<? extends Meter>> TYPES = Map.of("timer", Timer.class, "long task timer", LongTaskTimer.class,
            "gauge", Gauge.class, "counter", Counter.class);

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.METRICS), RedisLockAutoConfiguration.class,
                    RedisLockObservationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void everyLockMeterOfARealRegistryHasARowWithItsTypeAndTags() throws IOException {
        Map<String, Row> documented = documentedMetrics();
        assertThat(documented).as("rows of docs/observability.md's metric table").hasSizeGreaterThan(5);
        contextRunner.run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            // Every outcome that registers a meter: an acquisition, a hold, a tryLock finding the lock held,
            // a watchdog renewal and a lock the watchdog finds gone.
            locker.lock("documented-metrics-held");
            assertThat(CompletableFuture.supplyAsync(() -> locker.tryLock("documented-metrics-held")).get(5, TimeUnit.SECONDS)).isFalse();
            Internals.renewNow(locker);
            context.getBean(StringRedisTemplate.class).delete("lock:documented-metrics-held");
            Internals.renewNow(locker);
            assertThatThrownBy(() -> locker.unlock("documented-metrics-held")).isInstanceOf(LockLostException.class);
            locker.lock("documented-metrics-released");
            locker.unlock("documented-metrics-released");

            Map<String, Row> registered = new TreeMap<>();
            for (Meter meter : context.getBean(MeterRegistry.class).getMeters()) {
                String name = meter.getId().getName();
                if (name.startsWith("redis.lock")) {
                    Row row = registered.computeIfAbsent(name, n -> new Row(typeOf(meter), new TreeSet<>()));
                    meter.getId().getTags().stream().map(Tag::getKey).forEach(row.tags()::add);
                }
            }
            assertThat(registered).as("redis.lock meters of the registry, as docs/observability.md's metric table should show them")
                    .isEqualTo(new TreeMap<>(documented));
        });
    }

    private static String typeOf(Meter meter) {
        return TYPES.entrySet().stream().filter(type -> type.getValue().isInstance(meter)).map(Map.Entry::getKey).findFirst()
                .orElse(meter.getClass().getSimpleName());
    }

    private static Map<String, Row> documentedMetrics() throws IOException {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Manual.ROOT.resolve("docs/observability.md"), StandardCharsets.UTF_8)) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                Set<String> tags = new TreeSet<>();
                Matcher tag = TAG.matcher(row.group(3).replaceAll("\\([^)]*\\)", "")); // the values in parentheses are not tags
                while (tag.find()) {
                    tags.add(tag.group(1));
                }
                rows.put(row.group(1), new Row(row.group(2), tags));
            }
        }
        return rows;
    }

    private record Row(String type, Set<String> tags) {
    }
}
