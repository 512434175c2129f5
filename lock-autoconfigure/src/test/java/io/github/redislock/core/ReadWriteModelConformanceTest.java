package io.github.redislock.core;

import io.github.redislock.core.script.LockScript;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * The read-write lock's SPIN model ({@code model/rwlock.pml}) and {@code read-write.lua} describe the same
 * protocol: the model's random runs, replayed through the real script on a real redis-server, leave the
 * owners' counts and the writer where the model says after every step (see {@link ReadWriteModelReplay}).
 * The traces are committed ({@code model/traces/rwlock.trace}) and kept current by {@code model/verify.sh}.
 */
class ReadWriteModelConformanceTest {

    @Test
    void everyRandomSimulationOfTheReadWriteModelRunsAlikeOnRedis() throws IOException {
        List<ReadWriteModelReplay.Trace> traces = traces();
        assertThat(traces).as("random simulations in model/traces/rwlock.trace").hasSizeGreaterThanOrEqualTo(500);
        assertThat(differences(traces, ModelReplay.script(LockScript.READ_WRITE), "random", 3)).isEmpty();
    }

    @Test
    void aReadThatIgnoresTheWriterFailsTheReplay() throws IOException {
        String real = ModelReplay.script(LockScript.READ_WRITE);
        // a copy of read-write.lua whose read passes another owner's write hold, as -DBROKEN_RW_READ_BESIDE_WRITER breaks the model
        String broken = real.replace("if writer and writer ~= owner then", "if writer and writer ~= owner and action == 'write' then");
        assertThat(broken).as("the broken copy").isNotEqualTo(real);
        assertThat(differences(traces(), broken, "read-beside-writer", 1)).as("traces whose replay finds the broken writer check").isNotEmpty();
    }

    private static List<ReadWriteModelReplay.Trace> traces() throws IOException {
        return ReadWriteModelReplay.Trace.read(ModelTrace.MODEL.resolve("traces/rwlock.trace"));
    }

    /** Replays until {@code enough} traces differed; returns what differed. */
    private static List<String> differences(List<ReadWriteModelReplay.Trace> traces, String script, String run, int enough) {
        List<String> differences = new ArrayList<>();
        try (ReadWriteModelReplay replay = new ReadWriteModelReplay(TestRedis.shared(), script, run)) {
            for (int i = 0; i < traces.size() && differences.size() < enough; i++) {
                Optional<String> difference = replay.replay(traces.get(i), i);
                difference.ifPresent(differences::add);
            }
        }
        return differences;
    }
}
