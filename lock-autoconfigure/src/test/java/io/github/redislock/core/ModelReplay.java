package io.github.redislock.core;

import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockScript;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerProcess;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Replays {@link ModelTrace}s through the real lock scripts on a real Redis: each script step is sent
 * with the KEYS and ARGV that {@link LockCommands} builds for it, each time step does to the keys what
 * Redis' expiry would, and after every step the reply, the published hand-off message and the Redis
 * state (owner fields and counts, the 'waiters' field, the wait queue in order, which places' deadlines
 * passed) must be what the model says. The model's fencing tokens are small counters where Redis has
 * microseconds: they must map one-to-one, in the same order; where the model draws none (a blocking
 * locker's everyday acquisition, sent without {@code acquire.lua}'s flag 3), Redis must draw none, and a
 * holder's ask ({@code token.lua}) must answer the model's token, or -1 where the model has none.
 *
 * <p>Model owner field n is {@code client<locker>:<n>} (owner 2 lives in Locker 1, owners 1 and 3 in
 * Locker 0); model queue member {@code thread * 8 + wait} is the member {@link LockCommands#queueMember}
 * builds for wait id {@code wait * 10 + thread} (wait ids are per Locker in the client, per thread in the
 * model) on its Locker's inbox.
 */
final class ModelReplay implements AutoCloseable {

    static final long LEASE = 60_000;
    static final long KEEP_PLACE = 20_000;
    static final long CLAIM_LEASE = 30_000;
    /** How long a kept release (holdAtLeast) keeps the lock: the model ends it with an 'E' step. */
    static final long KEEP = 60_000;
    private static final String SENTINEL = "end-of-trace";

    private final ReplayClient lettuce;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    private final String acquire = script(LockScript.ACQUIRE);
    private final String release;
    private final String claim = script(LockScript.CLAIM);
    private final String renew = script(LockScript.RENEW);
    private final String token = script(LockScript.TOKEN);
    private final String run;

    /**
     * @param release the text of {@code release.lua} to run (the real one, or a deliberately broken copy)
     * @param run     names this replay's keys and inboxes apart from other tests sharing the server
     */
    ModelReplay(RedisServerProcess server, String release, String run) {
        this.release = release;
        this.run = run;
        lettuce = new ReplayClient(server);
        connection = lettuce.connection();
        redis = connection.sync();
        lettuce.subscribe((channel, message) -> messages.add(channel + " " + message), inbox(0), inbox(1));
    }

    static String script(LockScript script) {
        return new String(script.body(), StandardCharsets.UTF_8);
    }

    /** @return the first difference between the model and Redis, described; empty when the trace conforms */
    Optional<String> replay(ModelTrace trace, int number) {
        LockKeys keys = LockKeys.of("model-conformance:" + run + ":", "lock-" + number);
        messages.clear();
        try {
            return new Run(trace, keys).replay();
        }
        finally {
            redis.del(keys.name(), keys.waitQueue(), keys.waitDeadlines());
        }
    }

    private String inbox(int locker) {
        return "model-conformance:" + run + ":inbox-L" + locker;
    }

    /** One trace's replay: its key, and the model's fencing tokens as Redis drew them. */
    private final class Run {
        private final ModelTrace trace;
        private final LockKeys keys;
        private final ModelTokens tokens = new ModelTokens();

        Run(ModelTrace trace, LockKeys keys) {
            this.trace = trace;
            this.keys = keys;
        }

        Optional<String> replay() {
            for (int i = 0; i < trace.steps().size(); i++) {
                ModelTrace.Step step = trace.steps().get(i);
                String difference;
                try {
                    difference = step(step);
                    if (difference == null) {
                        difference = state(step);
                    }
                }
                catch (RuntimeException | InterruptedException e) {
                    difference = "Redis failed the step: " + e;
                }
                if (difference != null) {
                    return Optional.of(describe(i, difference));
                }
            }
            String unexpected = unexpectedMessages();
            return unexpected == null ? Optional.empty() : Optional.of(describe(trace.steps().size(), unexpected));
        }

        private String describe(int failedStep, String difference) {
            StringBuilder text = new StringBuilder("model trace (" + trace.origin() + ") differs from Redis at step " + (failedStep + 1)
                    + ": " + difference + "\n");
            for (int i = 0; i <= Math.min(failedStep, trace.steps().size() - 1); i++) {
                text.append(i == failedStep ? "  >> " : "     ").append(trace.steps().get(i).line()).append('\n');
            }
            return text.toString();
        }

        /** Runs the step; returns a difference in its reply or message, or null. */
        private String step(ModelTrace.Step step) throws InterruptedException {
            int[] a = step.args();
            int[] r = step.reply();
            switch (step.op()) {
                case 'A', 'M' -> { // M: a wait's first try, which only marks a lock it finds held (owner, first hold, draw now)
                    boolean marks = step.op() == 'M';
                    boolean queues = !marks && a[1] != 0; // member 0: a try with no wait, which does not queue
                    long keepPlace = queues ? KEEP_PLACE : 0;
                    boolean drawNow = a[marks ? 2 : 4] == 1; // acquire.lua's flag 3: the everyday path draws the token too
                    byte[][] keysAndArgs = LockCommands.acquireKeysAndArgs(List.of(keys), owner(a[0]), LEASE, new boolean[] {a[marks ? 1 : 3] == 1},
                            keepPlace, queues ? member(a[1]) : "", !marks && a[2] == 1, queues || marks, drawNow);
                    List<Object> answer = eval(acquire, LockCommands.acquireKeyCount(1, keepPlace), keysAndArgs);
                    // a lone integer (Lettuce's MULTI output makes it a list of one) is the everyday first hold's token, or 1: none drawn
                    long lone = answer.size() == 1 ? (Long) answer.get(0) : 0;
                    List<Object> reply = answer.size() == 1 ? List.of(1L, 1L, !drawNow && lone == 1 ? 0L : lone) : answer;
                    long ok = (Long) reply.get(0);
                    if (ok != r[0]) {
                        return "acquire.lua answered " + reply + ", the model " + Arrays.toString(r);
                    }
                    if (ok == 1) {
                        if ((Long) reply.get(1) != r[1]) {
                            return "acquire.lua counts " + reply.get(1) + " holds, the model " + r[1];
                        }
                        return tokens.map(r[2], (Long) reply.get(2), "acquire.lua");
                    }
                    return null;
                }
                case 'R' -> {
                    Long released = a[2] == 0 ? Long.valueOf(0) : tokens.redis(a[2]);
                    if (released == null) {
                        return "the model releases with token " + a[2] + ", which Redis never drew";
                    }
                    byte[][] keysAndArgs = LockCommands.releaseKeysAndArgs(List.of(keys), owner(a[0]), a[1] == 0 ? "" : member(a[1]),
                            new long[] {a[3] == 1 ? 0 : LEASE}, new long[] {released}, null, "publish".getBytes(StandardCharsets.UTF_8));
                    List<Object> reply = eval(release, LockCommands.RELEASE_KEYS_PER_LOCK, keysAndArgs);
                    long expected = r[0] == 255 ? -1 : r[0];
                    if ((Long) reply.get(0) != expected) {
                        return "release.lua answered " + reply.get(0) + ", the model " + expected;
                    }
                    return r[1] == 0 ? null : granted(r[1], r[2]);
                }
                case 'S' -> { // the short release: the lock hash and the owner only
                    List<Object> reply = eval(release, 1, new byte[][] {keys.name().getBytes(StandardCharsets.UTF_8), owner(a[0]).getBytes(StandardCharsets.UTF_8)});
                    long expected = r[0] == 255 ? -1 : r[0] == 254 ? -2 : r[0];
                    return (Long) reply.get(0) != expected ? "release.lua (short) answered " + reply.get(0) + ", the model " + expected : null;
                }
                case 'K' -> {
                    // a final release keeping the lock (holdAtLeast): release.lua's ARGV[3+2n+i] after the per-lock arguments
                    Long released = a[1] == 0 ? Long.valueOf(0) : tokens.redis(a[1]);
                    if (released == null) {
                        return "the model releases with token " + a[1] + ", which Redis never drew";
                    }
                    byte[][] plain = LockCommands.releaseKeysAndArgs(List.of(keys), owner(a[0]), "", new long[] {0}, new long[] {released}, null,
                            "publish".getBytes(StandardCharsets.UTF_8));
                    byte[][] keysAndArgs = Arrays.copyOf(plain, plain.length + 1);
                    keysAndArgs[plain.length] = Long.toString(KEEP).getBytes(StandardCharsets.UTF_8);
                    List<Object> reply = eval(release, LockCommands.RELEASE_KEYS_PER_LOCK, keysAndArgs);
                    long expected = r[0] == 255 ? -1 : r[0];
                    return (Long) reply.get(0) != expected ? "release.lua (keeping) answered " + reply.get(0) + ", the model " + expected : null;
                }
                case 'C' -> { // with a second argument, the member whose place the claim takes out of the queue
                    Long reply = a.length == 1
                            ? connection.sync().eval(claim, ScriptOutputType.INTEGER, new String[] {keys.name()}, owner(a[0]), Long.toString(LEASE))
                            : connection.sync().eval(claim, ScriptOutputType.INTEGER, new String[] {keys.name(), keys.waitQueue(), keys.waitDeadlines()},
                                    owner(a[0]), Long.toString(LEASE), member(a[1]));
                    return reply != r[0] ? "claim.lua answered " + reply + ", the model " + r[0] : null;
                }
                case 'N' -> {
                    // the watchdog's batch of one: KEYS the hash, ARGV the lease then the owner field expected in it
                    List<Object> lost = redis.eval(renew, ScriptOutputType.MULTI, new String[] {keys.name()}, Long.toString(LEASE), owner(a[0]));
                    boolean held = lost.isEmpty();
                    return held != (r[0] == 1) ? "renew.lua found the hold " + (held ? "held" : "lost") + ", the model " + (r[0] == 1 ? "held" : "lost") : null;
                }
                case 'F' -> { // token.lua: the model's token, or 0 for its -1 (the owner no longer holds the lock); a lost reply (r[1]) ran all the same
                    Long drawn = connection.sync().eval(token, ScriptOutputType.INTEGER, new String[] {keys.name()}, owner(a[0]));
                    if (r[0] == 0) {
                        return drawn != -1 ? "token.lua drew " + drawn + " where the model answers -1" : null;
                    }
                    return drawn == -1 ? "token.lua answered -1 where the model draws token " + r[0] : tokens.map(r[0], drawn, "token.lua");
                }
                case 'E' -> redis.del(keys.name());
                case 'L' -> {
                    List<String> queue = redis.lrange(keys.waitQueue(), 0, -1);
                    redis.zadd(keys.waitDeadlines(), ZAddArgs.Builder.xx(), 1, queue.get(a[0]));
                }
                case 'X' -> redis.del(keys.waitQueue(), keys.waitDeadlines());
                default -> throw new IllegalArgumentException("Unknown model step " + step.line());
            }
            return null;
        }

        /** The hand-off message the model published: on the new owner's inbox, its token, wait id and owner. */
        private String granted(int member, int token) throws InterruptedException {
            String message = messages.poll(2, TimeUnit.SECONDS);
            String expectedStart = inbox(locker(member / 8)) + " granted:";
            String expectedEnd = ":" + waitName(member);
            if (message == null || !message.startsWith(expectedStart) || !message.endsWith(expectedEnd)) {
                return "the model hands the lock to " + waitName(member) + ", Redis published " + message;
            }
            String drawn = message.substring(expectedStart.length(), message.length() - expectedEnd.length());
            return tokens.map(token, Long.parseLong(drawn), "the hand-off");
        }

        /** Publishes a sentinel after the trace: every message before it is one the model did not publish. */
        private String unexpectedMessages() {
            redis.publish(inbox(0), SENTINEL);
            List<String> extra = new ArrayList<>();
            try {
                for (String message = messages.poll(2, TimeUnit.SECONDS); message != null && !message.endsWith(" " + SENTINEL);
                     message = messages.poll(2, TimeUnit.SECONDS)) {
                    extra.add(message);
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
            return extra.isEmpty() ? null : "Redis published messages the model did not: " + extra;
        }

        /** Compares the lock hash, the queue and its deadlines with the model's state after the step. */
        private String state(ModelTrace.Step step) {
            Map<String, String> expectedHash = new HashMap<>();
            for (int owner = 1; owner <= 3; owner++) {
                if (step.count(owner) > 0) {
                    expectedHash.put(owner(owner), Integer.toString(step.count(owner)));
                }
            }
            if (step.waitersMark()) {
                expectedHash.put("waiters", "1");
            }
            Map<String, String> hash = redis.hgetall(keys.name());
            if (step.kept() != hash.containsKey("kept")) {
                return "the lock hash is " + hash + ", the model's " + (step.kept() ? "has" : "has no") + " 'kept' field";
            }
            hash.remove("kept"); // its value, the former owner, is not in the model
            if (!hash.equals(expectedHash)) {
                return "the lock hash is " + hash + ", the model's " + expectedHash;
            }
            List<String> expectedQueue = new ArrayList<>();
            for (int place = 0; place < step.queueLength(); place++) {
                expectedQueue.add(member(step.member(place)));
            }
            List<String> queue = redis.lrange(keys.waitQueue(), 0, -1);
            if (!queue.equals(expectedQueue)) {
                return "the wait queue is " + queue + ", the model's " + expectedQueue;
            }
            List<String> time = redis.time();
            long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
            Map<String, Boolean> lapsed = new HashMap<>();
            for (ScoredValue<String> deadline : redis.zrangeWithScores(keys.waitDeadlines(), 0, -1)) {
                lapsed.put(deadline.getValue(), deadline.getScore() <= nowMillis);
            }
            Map<String, Boolean> expectedLapsed = new HashMap<>();
            for (int place = 0; place < step.queueLength(); place++) {
                expectedLapsed.put(member(step.member(place)), step.lapsed(place));
            }
            if (!lapsed.equals(expectedLapsed)) {
                return "the queue's deadlines have passed " + lapsed + ", in the model " + expectedLapsed;
            }
            return null;
        }

        private String owner(int owner) {
            return "client" + (owner == 2 ? 1 : 0) + ":" + owner;
        }

        private int locker(int thread) {
            return thread == 2 ? 1 : 0;
        }

        private String waitName(int member) {
            int thread = member / 8;
            int wait = member % 8;
            return (wait * 10 + thread) + ":" + owner(trace.owners()[thread]);
        }

        private String member(int member) {
            return LockCommands.queueMember(LockCommands.inboxField(inbox(locker(member / 8))), waitName(member), CLAIM_LEASE);
        }

        private List<Object> eval(String script, int keyCount, byte[][] keysAndArgs) {
            String[] keys = new String[keyCount];
            String[] args = new String[keysAndArgs.length - keyCount];
            for (int i = 0; i < keysAndArgs.length; i++) {
                String value = new String(keysAndArgs[i], StandardCharsets.UTF_8);
                if (i < keyCount) {
                    keys[i] = value;
                }
                else {
                    args[i - keyCount] = value;
                }
            }
            return redis.eval(script, ScriptOutputType.MULTI, keys, args);
        }
    }

    @Override
    public void close() {
        lettuce.close();
    }
}
