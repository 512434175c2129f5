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

    @Test
    void aReleaseThatCountsDownWhatRedisCountsFailsTheReplay() throws IOException {
        String real = ModelReplay.script(LockScript.READ_WRITE);
        // a copy of read-write.lua that ignores ARGV[4] (the owner's last hold of that mode as its client counts), as
        // -DBROKEN_RW_COUNTS_FROM_REDIS breaks the model: after a re-entry whose reply was lost, the last unlock leaves a hold
        String broken = real.replace("local holdCount = ARGV[4] == '1' and 0 or redis.call('hincrby', hash, field, -1)",
                "local holdCount = redis.call('hincrby', hash, field, -1)");
        assertThat(broken).as("the broken copy").isNotEqualTo(real);
        assertThat(differences(traces(), broken, "counts-from-redis", 1)).as("traces whose replay finds the count left by a lost re-entry").isNotEmpty();
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
