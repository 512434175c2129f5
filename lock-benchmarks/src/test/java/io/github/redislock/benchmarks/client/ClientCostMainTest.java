package io.github.redislock.benchmarks.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code --client-cost}'s bytes per pair are those of compiled code only once the JIT is done: each result says
 * how long the JIT compiled during its measured iterations, beside the bytes and times it puts in doubt.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClientCostMainTest {

    @Test
    void eachResultSaysHowLongTheJitCompiledWhileItWasMeasured() throws RunnerException {
        Collection<RunResult> results = ClientCostMain.measure(ClientCostMain.options(1, 1, TimeValue.milliseconds(200)));

        assertThat(results).hasSize(2).allSatisfy(result -> {
            assertThat(result.getSecondaryResults()).containsKeys("gc.alloc.rate.norm", "compiler.time.profiled");
            assertThat(result.getSecondaryResults().get("compiler.time.profiled").getScore()).isGreaterThanOrEqualTo(0);
        });
    }
}
