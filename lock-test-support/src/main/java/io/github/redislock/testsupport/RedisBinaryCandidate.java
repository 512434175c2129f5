package io.github.redislock.testsupport;

import java.nio.file.Path;

/**
 * One {@code redis-server} that {@link RedisBinary} may start.
 *
 * @param executable the file to run; null for the embedded-redis jar's binary until it is extracted
 * @param source where it was found
 * @param detail how it was found, for log lines
 * @param resource the embedded-redis classpath resource, or null for an installed binary
 */
record RedisBinaryCandidate(Path executable, RedisBinary.Source source, String detail, String resource) {

    /** The same candidate with its binary extracted to {@code extracted}. */
    RedisBinaryCandidate extractedTo(Path extracted) {
        return new RedisBinaryCandidate(extracted, source, detail, resource);
    }

    /** What a log line calls this candidate. */
    String describe() {
        return executable == null ? "the embedded-redis jar's " + resource : executable + " (" + detail + ")";
    }
}
