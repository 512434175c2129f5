package io.github.redislock.core;

import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.github.redislock.testsupport.RedisServerProcess;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Replays runs of the read-write lock's SPIN model ({@code model/rwlock.pml}) through {@code read-write.lua}
 * on a real Redis: each acquisition and release is sent with the KEYS and ARGV {@link LockCommands} builds,
 * each lease end moves the owner's lease deadline into the past (the script drops such an owner on its
 * next call), and after every step the owners Redis still counts (a lease deadline to come) must be the
 * model's: their read and write counts, the 'writer' field, the reply and the fencing tokens (see {@link ModelTokens}). See "Conformance traces" in {@code rwlock.pml}.
 *
 * <p>Model owner n is {@code client<locker>:<n>}: owners 1 and 2 live in Locker 0, owner 3 in Locker 1.
 */
final class ReadWriteModelReplay implements AutoCloseable {

    static final long LEASE = 60_000;

    /** One run of the model: its origin (the spin command) and its steps, each line as the model printed it. */
    record Trace(String origin, List<String> steps) {
        /** Reads a file of runs, each starting at a {@code #} line naming its spin command. */
        static List<Trace> read(Path file) throws IOException {
            List<Trace> traces = new ArrayList<>();
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith("# ") && line.contains("spin ")) {
                    traces.add(new Trace(line.substring(2), new ArrayList<>()));
                } else if (line.startsWith("@") && !traces.isEmpty()) {
                    traces.get(traces.size() - 1).steps().add(line);
                }
            }
            return traces;
        }
    }

    private final ReplayClient lettuce;
    private final RedisCommands<String, String> redis;
    private final String script;
    private final String run;

    /**
     * @param script the text of {@code read-write.lua} to run (the real one, or a deliberately broken copy)
     * @param run    names this replay's keys apart from other tests sharing the server
     */
    ReadWriteModelReplay(RedisServerProcess server, String script, String run) {
        this.script = script;
        this.run = run;
        lettuce = new ReplayClient(server);
        redis = lettuce.connection().sync();
    }

    /** @return the first difference between the model and Redis, described; empty when the trace conforms */
    Optional<String> replay(Trace trace, int number) {
        LockKeys keys = LockKeys.of("model-conformance-rw:" + run + ":", "lock-" + number);
        ModelTokens tokens = new ModelTokens();
        try {
            for (int i = 0; i < trace.steps().size(); i++) {
                String line = trace.steps().get(i);
                String difference;
                try {
                    difference = step(keys, line, tokens);
                } catch (RuntimeException e) {
                    difference = "Redis failed the step: " + e;
                }
                if (difference != null) {
                    StringBuilder text = new StringBuilder("read-write model trace (" + trace.origin() + ") differs from Redis at step " + (i + 1)
                            + ": " + difference + "\n");
                    for (int j = 0; j <= i; j++) {
                        text.append(j == i ? "  >> " : "     ").append(trace.steps().get(j)).append('\n');
                    }
                    return Optional.of(text.toString());
                }
            }
            return Optional.empty();
        } finally {
            redis.del(keys.name(), keys.leases(), keys.fence());
        }
    }

    private String step(LockKeys keys, String line, ModelTokens tokens) {
        int equals = line.indexOf(" = ");
        int bar = line.indexOf("| ");
        if (equals < 0 || bar < 0) {
            throw new IllegalArgumentException("Not a read-write model step: " + line);
        }
        int[] args = numbers(line.substring(2, equals));
        int[] reply = numbers(line.substring(equals + 3, bar));
        int[] state = numbers(line.substring(bar + 2));
        if (state.length != 10) {
            throw new IllegalArgumentException("A read-write model step's state has 10 numbers: " + line);
        }
        String owner = owner(args[0]);
        String difference = switch (line.charAt(1)) {
            case 'W' -> {
                List<Object> answer = redis.eval(script, ScriptOutputType.MULTI, scriptKeys(keys), args[1] == 1 ? "write" : "read", owner,
                        Long.toString(LEASE), Integer.toString(args[2]), Integer.toString(args[3]), "publish");
                long ok = (Long) answer.get(0);
                if (ok != reply[0]) {
                    yield "read-write.lua answered " + answer + ", the model " + Arrays.toString(reply);
                }
                if (ok == 1 && (Long) answer.get(1) != reply[1]) {
                    yield "read-write.lua counts " + answer.get(1) + " holds, the model " + reply[1];
                }
                yield ok == 1 ? tokens.map(reply[2], (Long) answer.get(2), "read-write.lua") : null;
            }
            case 'U' -> {
                Long answer = redis.eval(script, ScriptOutputType.INTEGER, scriptKeys(keys), args[1] == 1 ? "unwrite" : "unread", owner,
                        "0", Integer.toString(args[2]), "0", "publish"); // ARGV[4]: the owner's last hold of that mode as its client counts
                long expected = reply[0] == 255 ? -1 : reply[0];
                yield answer != expected ? "read-write.lua released with " + answer + ", the model " + expected : null;
            }
            case 'E' -> {
                redis.zadd(keys.leases(), ZAddArgs.Builder.xx(), 1, owner); // its deadline passed: the next call drops it
                yield null;
            }
            default -> throw new IllegalArgumentException("Unknown read-write model step " + line);
        };
        return difference != null ? difference : state(keys, state);
    }

    /** The owners whose lease deadline is still to come, with their counts, and the writer among them, against the model's. */
    private String state(LockKeys keys, int[] state) {
        List<String> time = redis.time();
        long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        List<String> live = redis.zrangebyscore(keys.leases(), Range.create((double) nowMillis + 1, Double.POSITIVE_INFINITY));
        Map<String, String> hash = redis.hgetall(keys.name());
        Map<String, String> actual = new TreeMap<>();
        Map<String, String> expected = new TreeMap<>();
        for (int o = 1; o <= 3; o++) {
            String owner = owner(o);
            if (live.contains(owner)) {
                actual.put(owner + ":r", hash.getOrDefault(owner + ":r", "0"));
                actual.put(owner + ":w", hash.getOrDefault(owner + ":w", "0"));
            }
            if (state[3 * (o - 1) + 2] == 1) {
                expected.put(owner + ":r", Integer.toString(state[3 * (o - 1)]));
                expected.put(owner + ":w", Integer.toString(state[3 * (o - 1) + 1]));
            }
        }
        String writer = hash.get("writer");
        if (writer != null && live.contains(writer)) {
            actual.put("writer", writer);
        }
        if (state[9] != 0) {
            expected.put("writer", owner(state[9]));
        }
        return actual.equals(expected) ? null : "Redis counts " + actual + " (hash " + hash + "), the model " + expected;
    }

    private static String[] scriptKeys(LockKeys keys) {
        return new String[] {keys.name(), keys.leases(), keys.fence(), keys.channel()};
    }

    private static String owner(int owner) {
        return "client" + (owner == 3 ? 1 : 0) + ":" + owner;
    }

    private static int[] numbers(String text) {
        String trimmed = text.trim();
        return trimmed.isEmpty() ? new int[0] : Arrays.stream(trimmed.split("\\s+")).mapToInt(Integer::parseInt).toArray();
    }

    @Override
    public void close() {
        lettuce.close();
    }
}
