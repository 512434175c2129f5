package io.github.redislock.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One run of the SPIN model ({@code model/lock.pml}) as its script steps: each step is a script call
 * (or the passing of time) with its arguments and reply as the model computed them, and the Redis state
 * the model holds after it. {@code model/traces.sh} writes random simulations to
 * {@code model/traces/random.trace}; {@code model/verify.sh trails} writes each counter-example's to
 * {@code model/trails/<name>.trace}. See "conformance traces" in {@code lock.pml} for the line format.
 *
 * @param origin    the spin command that produced it (the {@code #} line)
 * @param owners    the owner field number of client threads 0, 1 and 2
 * @param steps     the steps, in order
 */
record ModelTrace(String origin, int[] owners, List<Step> steps) {

    /** Where the model lives, from the module directory the tests run in. */
    static final Path MODEL = Path.of("..", "model");

    /**
     * One step: {@code op} is A (acquire.lua; member 0: a try that does not queue), M (acquire.lua marking, not queuing: a
     * wait's first try), R (release.lua), K (release.lua
     * keeping the lock, holdAtLeast), C (claim.lua), N (renew.lua), F (token.lua: a holder asks for its fencing token;
     * its reply is the token, 0 for -1, then 1 when the reply was lost after the script ran, so the Hold kept nothing),
     * E (the key's lease ended), L (a queue place's deadline passed) or X (the queue's keys expired). A and M end their
     * arguments with acquire.lua's flag 3, "draw the token now" (without it the everyday path draws none: token 0).
     *
     * @param line the line as the model printed it, for failure messages
     * @param args the step's arguments
     * @param reply the reply the model computed
     * @param state after the step: hold counts of owner fields 1 to 3, 'waiters', queue length, then
     *              per queue place (4) its member and whether its deadline passed; with {@code -DHOLD_AT_LEAST}
     *              a fourteenth number, whether the hash has its 'kept' field
     */
    record Step(String line, char op, int[] args, int[] reply, int[] state) {
        int count(int owner) {
            return state[owner - 1];
        }

        boolean waitersMark() {
            return state[3] == 1;
        }

        int queueLength() {
            return state[4];
        }

        int member(int place) {
            return state[5 + 2 * place];
        }

        boolean lapsed(int place) {
            return state[6 + 2 * place] == 1;
        }

        boolean kept() {
            return state.length > 13 && state[13] == 1;
        }
    }

    /** Reads a file of traces: each starts at a {@code #} line naming its origin, then an {@code @T} line. */
    static List<ModelTrace> read(Path file) throws IOException {
        List<ModelTrace> traces = new ArrayList<>();
        String origin = null;
        int[] owners = null;
        List<Step> steps = null;
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("# ") && line.contains("spin ")) {
                if (owners != null) {
                    traces.add(new ModelTrace(origin, owners, steps));
                }
                origin = line.substring(2);
                owners = null;
                steps = new ArrayList<>();
            }
            else if (line.startsWith("@T ")) {
                owners = numbers(line.substring(3));
            }
            else if (line.startsWith("@") && steps != null) {
                steps.add(step(line));
            }
        }
        if (owners != null) {
            traces.add(new ModelTrace(origin, owners, steps));
        }
        return traces;
    }

    private static Step step(String line) {
        int equals = line.indexOf(" = ");
        int bar = line.indexOf("| ");
        if (equals < 0 || bar < 0) {
            throw new IllegalArgumentException("Not a model step: " + line);
        }
        char op = line.charAt(1);
        int[] args = numbers(line.substring(2, equals));
        int[] reply = numbers(line.substring(equals + 3, bar));
        int[] state = numbers(line.substring(bar + 2));
        if (state.length != 13 && state.length != 14) {
            throw new IllegalArgumentException("A model step's state has 13 numbers (14 with the 'kept' field): " + line);
        }
        return new Step(line, op, args, reply, state);
    }

    private static int[] numbers(String text) {
        String trimmed = text.trim();
        return trimmed.isEmpty() ? new int[0] : Arrays.stream(trimmed.split("\\s+")).mapToInt(Integer::parseInt).toArray();
    }
}
