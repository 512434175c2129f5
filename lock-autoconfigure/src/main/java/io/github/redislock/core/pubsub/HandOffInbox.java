package io.github.redislock.core.pubsub;

import io.github.redislock.core.pubsub.ReleaseSubscriptions.ReleaseChannel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * This instance's own channel, where {@code release.lua} hands a lock to one of its queued waits
 * ({@code granted:<fencing token>:<wait name>}), waking that wait alone. A wait queues in Redis before it
 * joins here, so its hand-off may come first: the last {@value #MAX_UNCLAIMED_HAND_OFFS} are kept.
 */
final class HandOffInbox extends ReleaseChannel {

    private static final Log log = LogFactory.getLog(HandOffInbox.class);
    private static final String GRANTED = "granted:";
    private static final int MAX_UNCLAIMED_HAND_OFFS = 64; // one is kept for a few microseconds

    /** By wait name, not in the channel's queue, where leaving costs a scan. Guarded by itself. */
    private final Map<String, Waiting> waits = new HashMap<>();
    /** Hand-offs to waits that had not joined yet. Guarded by {@link #waits}. */
    private final Map<String, Long> unclaimed = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_UNCLAIMED_HAND_OFFS;
        }
    };

    HandOffInbox(String anchorChannel) {
        super(anchorChannel + ":" + UUID.randomUUID());
    }

    void register(Waiting waiting) {
        synchronized (waits) {
            waits.put(waiting.waitName, waiting);
            Long token = unclaimed.remove(waiting.waitName);
            if (token != null) {
                waiting.grant(token);
            }
        }
    }

    void unregister(Waiting waiting) {
        synchronized (waits) {
            waits.remove(waiting.waitName, waiting);
        }
    }

    @Override
    void wakeAll() {
        synchronized (waits) {
            waits.values().forEach(Waiting::wake);
        }
    }

    @Override
    void message(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        if (!text.startsWith(GRANTED)) {
            log.debug("Ignored a message on this instance's inbox that is not a hand-off: " + text);
            return;
        }
        int waitStart = text.indexOf(':', GRANTED.length());
        long token = Long.parseLong(text, GRANTED.length(), waitStart, 10);
        String waitName = text.substring(waitStart + 1);
        synchronized (waits) {
            Waiting waiting = waits.get(waitName);
            if (waiting != null) {
                waiting.grant(token);
            } else {
                unclaimed.put(waitName, token);
            }
        }
    }
}
