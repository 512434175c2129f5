package io.github.redislock.benchmarks.clients;

import java.util.HashMap;
import java.util.Map;

import com.baomidou.lock.LockInfo;
import com.baomidou.lock.LockTemplate;
import com.baomidou.lock.spring.boot.autoconfigure.LockAutoConfiguration;
import com.baomidou.lock.spring.boot.autoconfigure.RedisTemplateLockAutoConfiguration;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * lock4j's {@link LockTemplate} with its RedisTemplate executor, in a minimal Spring Boot context
 * (no web server) built from its own auto-configurations, as an application would get it.
 * {@code lock(key)} uses its configured expire; a renewed lock passes expire -1, its renewal mode.
 */
final class Lock4jClient implements LockClient {

    /** How long a blocking lock waits before lock4j gives up; the benchmark treats giving up as an error. */
    private static final long ACQUIRE_TIMEOUT_MILLIS = 600_000;

    private final ConfigurableApplicationContext context;
    private final LockTemplate template;
    private final long leaseMillis;
    private final ThreadLocal<Map<String, LockInfo>> held = ThreadLocal.withInitial(HashMap::new);

    Lock4jClient(LockImplementation.ClientSettings settings) {
        settings.requireStandalone("lock4j");
        leaseMillis = settings.lease().toMillis();
        context = new SpringApplicationBuilder(Lock4jApplication.class)
                .web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .bannerMode(org.springframework.boot.Banner.Mode.OFF)
                .properties(
                        "spring.data.redis.host=" + settings.host(),
                        "spring.data.redis.port=" + settings.port(),
                        "spring.data.redis.timeout=60s",
                        // renewal (expire -1) renews to this expire every third of it
                        "lock4j.expire=" + settings.watchdogTimeout().toMillis())
                .run();
        template = context.getBean(LockTemplate.class);
    }

    static LockImplementation implementation() {
        return new LockImplementation("lock4j", "lock4j " + RedissonClientAdapter.versionOf(LockTemplate.class) + " RedisTemplate", Lock4jClient::new);
    }

    @Override
    public void lock(String key) {
        take(key, leaseMillis);
    }

    @Override
    public void lockRenewed(String key) {
        take(key, -1);
    }

    private void take(String key, long expire) {
        LockInfo info = template.lock(key, expire, ACQUIRE_TIMEOUT_MILLIS);
        if (info == null) {
            throw new IllegalStateException("lock4j gave up on " + key + " after " + ACQUIRE_TIMEOUT_MILLIS + " ms");
        }
        held.get().put(key, info);
    }

    @Override
    public void unlock(String key) {
        LockInfo info = held.get().remove(key);
        if (info == null || !template.releaseLock(info)) {
            throw new IllegalMonitorStateException("lock4j could not release " + key);
        }
    }

    @Override
    public void close() {
        context.close();
    }

    @Configuration(proxyBeanMethods = false)
    @Import(RedisAutoConfigurationOfThisBoot.class)
    @ImportAutoConfiguration({LockAutoConfiguration.class, RedisTemplateLockAutoConfiguration.class})
    static class Lock4jApplication {
    }

    /**
     * Spring Data Redis' auto-configuration by name: Boot 4 moved it to another package and class name, and
     * these very sources also run on the Boot 3.5 line (lock-benchmarks-boot3).
     */
    static final class RedisAutoConfigurationOfThisBoot implements ImportSelector {

        private static final String BOOT_4 = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration";
        private static final String BOOT_3 = "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration";

        @Override
        public String[] selectImports(AnnotationMetadata metadata) {
            ClassLoader loader = Lock4jClient.class.getClassLoader();
            return new String[] {ClassUtils.isPresent(BOOT_4, loader) ? BOOT_4 : BOOT_3};
        }
    }
}
