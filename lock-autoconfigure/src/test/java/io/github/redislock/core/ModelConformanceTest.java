package io.github.redislock.core;

import io.github.redislock.core.script.LockScript;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * The SPIN model ({@code model/lock.pml}) and the scripts describe the same protocol: the model's script
 * steps, replayed through the real scripts on a real redis-server, leave Redis in the state the model
 * says after every step (see {@link ModelReplay}). The traces are committed files that
 * {@code model/verify.sh} keeps current (it fails when they are stale), so this test needs no SPIN; a
 * script change the model does not follow fails here.
 */
class ModelConformanceTest {

    /** The spin defines of variants whose scripts are deliberately broken: their trails must not conform. */
    private static final List<String> BROKEN_SCRIPTS = List.of("-DBROKEN_RELEASE_ANY", "-DBROKEN_WITHDRAW_KEEPS", "-DBROKEN_RENEW_EXISTS",
            "-DBROKEN_KEEP_DELETES", "-DBROKEN_ASK_UNCHECKED");

    @Test
    void everyRandomSimulationOfTheModelRunsAlikeOnRedis() throws IOException {
        List<ModelTrace> traces = ModelTrace.read(ModelTrace.MODEL.resolve("traces/random.trace"));
        assertThat(traces).as("random simulations in model/traces/random.trace").hasSizeGreaterThanOrEqualTo(1000);
        assertThat(differences(traces, ModelReplay.script(LockScript.RELEASE), "random", 3)).isEmpty();
    }

    @Test
    void everyRandomSimulationOfTheStepsOnlySomeRunsTakeRunsAlikeOnRedis() throws IOException {
        // zero-wait tries, kept releases (holdAtLeast), async cancel give-backs, 'released' wake-ups and asks for a token
        List<ModelTrace> traces = ModelTrace.read(ModelTrace.MODEL.resolve("traces/features.trace"));
        assertThat(traces).as("random simulations in model/traces/features.trace").hasSizeGreaterThanOrEqualTo(200);
        assertThat(traces.stream().flatMap(trace -> trace.steps().stream()).filter(step -> step.op() == 'K' && step.kept()))
                .as("kept releases in the traces").isNotEmpty();
        assertThat(traces.stream().flatMap(trace -> trace.steps().stream()).filter(step -> step.op() == 'F' && step.reply()[0] == 0))
                .as("asks for a token that token.lua answers with -1 in the traces").isNotEmpty();
        assertThat(traces.stream().flatMap(trace -> trace.steps().stream()).filter(step -> step.op() == 'F' && step.reply()[0] != 0 && step.reply()[1] == 1))
                .as("asks for a token whose reply was lost after token.lua drew it, in the traces").isNotEmpty();
        assertThat(differences(traces, ModelReplay.script(LockScript.RELEASE), "features", 3)).isEmpty();
    }

    @Test
    void everyCounterExampleOfTheFixedScriptsRunsAlikeOnRedis() throws IOException {
        List<ModelTrace> trails = trails(false);
        assertThat(trails).as("trails of the model with today's scripts in model/trails").isNotEmpty();
        assertThat(differences(trails, ModelReplay.script(LockScript.RELEASE), "trails", 3)).isEmpty();
    }

    @Test
    void everyCounterExampleOfADeliberatelyBrokenScriptDiffersFromRedis() throws IOException {
        List<ModelTrace> trails = trails(true);
        assertThat(trails).as("trails of deliberately broken scripts in model/trails").isNotEmpty();
        for (ModelTrace trail : trails) {
            assertThat(differences(List.of(trail), ModelReplay.script(LockScript.RELEASE), "broken", 1))
                    .as("the replay of %s on the real scripts", trail.origin()).hasSize(1);
        }
    }

    @Test
    void aReleaseWithoutItsOwnerCheckFailsTheReplay() throws IOException {
        String real = ModelReplay.script(LockScript.RELEASE);
        // a copy of release.lua that releases whatever the owner field says: a missing field counts as one hold
        String broken = real.replace("if not fields[1] then", "if false then").replace("tonumber(fields[1]) - 1", "tonumber(fields[1] or 1) - 1");
        assertThat(broken).as("the broken copy").contains("if false then", "fields[1] or 1");
        List<ModelTrace> traces = ModelTrace.read(ModelTrace.MODEL.resolve("traces/random.trace"));
        assertThat(differences(traces, broken, "no-owner-check", 1)).as("traces whose replay finds the broken owner check").isNotEmpty();
    }

    private static List<ModelTrace> trails(boolean brokenScripts) throws IOException {
        List<ModelTrace> trails = new ArrayList<>();
        try (Stream<Path> files = Files.list(ModelTrace.MODEL.resolve("trails"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".trace")).sorted().toList()) {
                for (ModelTrace trail : ModelTrace.read(file)) {
                    if (BROKEN_SCRIPTS.stream().anyMatch(trail.origin()::contains) == brokenScripts) {
                        trails.add(trail);
                    }
                }
            }
        }
        return trails;
    }

    /** Replays until {@code enough} traces differed; returns what differed. */
    private static List<String> differences(List<ModelTrace> traces, String release, String run, int enough) {
        List<String> differences = new ArrayList<>();
        try (ModelReplay replay = new ModelReplay(TestRedis.shared(), release, run)) {
            for (int i = 0; i < traces.size(); i++) {
                Optional<String> difference = replay.replay(traces.get(i), i);
                difference.ifPresent(differences::add);
                if (differences.size() >= enough) {
                    break;
                }
            }
        }
        return differences;
    }
}
