package io.github.redislock.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

/**
 * The file a server's stdout and stderr go to, appended to across restarts.
 *
 * <p>Why: a server that fails to start says why only in its own output, so every startup failure
 * quotes the end of this log; a marker line before each start keeps an earlier run's lines out of
 * that quote.
 */
final class ServerLog {

    private static final String RUN_MARKER = "===== redis-lock test support: starting ";
    private static final int TAIL_LINES = 40;

    private final Path file;

    ServerLog(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    /** Writes the marker that starts a new run's part of the log. */
    void markStart(int port) throws IOException {
        Files.writeString(file, RUN_MARKER + Instant.now() + " port " + port + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** The last lines written since the most recent start, or a note saying why there are none. */
    String tail() {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            return "(could not read " + file + ": " + ex.getMessage() + ")";
        }
        int from = 0;
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith(RUN_MARKER)) {
                from = i + 1;
                break;
            }
        }
        from = Math.max(from, lines.size() - TAIL_LINES);
        List<String> tail = lines.subList(from, lines.size());
        return tail.isEmpty() ? "(empty)" : String.join("\n", tail);
    }
}
