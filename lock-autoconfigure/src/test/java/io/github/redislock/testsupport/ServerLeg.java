package io.github.redislock.testsupport;

import java.lang.System.Logger.Level;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips every test of a JVM whose server-matrix leg ({@link RedisBinary#leg()}) has no
 * {@code redis-server}, with one log line naming what was found and why the leg cannot run.
 *
 * <p>Why: the {@code server-matrix} surefire execution reruns chosen suites on the second server
 * found, and {@code server-matrix-valkey} every suite on Valkey; on a machine with only the embedded
 * Redis those suites must be skipped, visibly, rather than fail or silently run the first server twice. It also skips the classes outside the matrix's list,
 * which a {@code -Dtest=...} on the command line would otherwise bring into that execution. Registered through
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension}, active where
 * {@code junit.jupiter.extensions.autodetection.enabled} is true (that execution only).
 */
public final class ServerLeg implements ExecutionCondition {

    private static final System.Logger LOG = System.getLogger(ServerLeg.class.getName());
    private static boolean logged;

    /** System property with the matrix's test classes: a regular expression over simple names. */
    static final String TESTS_PROPERTY = "redislock.test.server-matrix.tests";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String matrixTests = System.getProperty(TESTS_PROPERTY);
        Class<?> testClass = context.getTestClass().orElse(null);
        if (matrixTests != null && testClass != null) {
            while (testClass.getEnclosingClass() != null) {
                testClass = testClass.getEnclosingClass();
            }
            // -Dtest=X overrides the execution's includes; the other classes stay on leg 0 only.
            if (!testClass.getSimpleName().matches(matrixTests)) {
                return ConditionEvaluationResult.disabled(testClass.getSimpleName() + " is not in the server matrix ("
                        + matrixTests + "); it runs on leg 0 only");
            }
        }
        String unavailable = RedisBinary.legUnavailableReason();
        logOnce(unavailable);
        return unavailable == null
                ? ConditionEvaluationResult.enabled("matrix leg " + RedisBinary.leg() + " runs on " + RedisBinary.describe())
                : ConditionEvaluationResult.disabled("Skipped: " + unavailable);
    }

    private static synchronized void logOnce(String unavailable) {
        if (logged) {
            return;
        }
        logged = true;
        if (unavailable == null) {
            LOG.log(Level.INFO, "Server matrix leg {0}: tests run on {1}", RedisBinary.leg(), RedisBinary.describe());
        }
        else {
            LOG.log(Level.WARNING, "Server matrix: skipping these tests, " + unavailable);
        }
    }
}
