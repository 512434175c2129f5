package io.github.redislock.test;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Arrays;

import org.junit.platform.engine.discovery.ClassSelector;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs example test classes in the JUnit test kit, so a test can look at what the extension did to them
 * from outside.
 *
 * <p>Why the property: the examples are nested classes that Maven's default excludes skip, but a
 * {@code -Dtest=...} pattern can select them; each carries
 * {@code @EnabledIfSystemProperty(named = Examples.PROPERTY, matches = "run")} so that only this runner
 * runs them.
 */
final class Examples {

    /** Set only while {@link #run} runs the examples. */
    static final String PROPERTY = "redislock.test.examples";

    private Examples() {
    }

    static synchronized EngineExecutionResults run(Class<?>... examples) {
        System.setProperty(PROPERTY, "run");
        try {
            return EngineTestKit.engine("junit-jupiter")
                    .selectors(Arrays.stream(examples).map(example -> selectClass(example)).toArray(ClassSelector[]::new))
                    .execute();
        }
        finally {
            System.clearProperty(PROPERTY);
        }
    }
}
