package io.github.redislock.core.wait;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lines up the acquisitions of one shared owner (a token, a lock handle) of one lock, each starting once
 * the one before has settled: in flight together, both would take themselves for the first hold, and
 * Redis would count one hold where the owner believes in two.
 */
public final class OwnerTurns {

    public static final CompletableFuture<Void> NOW = CompletableFuture.completedFuture(null);

    /** The turn of a thread owner, which acquires one lock at a time by itself. */
    static final Turn NONE = new Turn(null, null);

    /** Per lock and owner, the end of its latest acquisition. */
    private final Map<String, CompletableFuture<Void>> latest = new ConcurrentHashMap<>();

    public int inLine() {
        return latest.size();
    }

    public static final class Turn {
        private final Map<String, CompletableFuture<Void>> line;
        private final String id;
        private final CompletableFuture<Void> before;
        private final CompletableFuture<Void> end = new CompletableFuture<>();

        private Turn(Map<String, CompletableFuture<Void>> line, String id) {
            this.line = line;
            this.id = id;
            this.before = line == null ? null : line.put(id, end);
        }

        public CompletableFuture<Void> ready() {
            return before == null ? NOW : before;
        }

        /** The acquisition has settled: the owner's next one may start. */
        public void end() {
            if (line == null) {
                return;
            }
            line.remove(id, end);
            if (before == null) {
                end.complete(null);
            } else { // one that gave up before its turn came must not let the next one start early
                before.whenComplete((done, failure) -> end.complete(null));
            }
        }
    }

    public Turn take(String redisKey, String owner, boolean sharedOwner) {
        return sharedOwner ? new Turn(latest, redisKey + '\n' + owner) : NONE;
    }
}
