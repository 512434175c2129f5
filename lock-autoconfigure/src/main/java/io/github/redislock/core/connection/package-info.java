/**
 * Connections of the blocking lockers' own to a standalone Redis, on which a calling thread sends a lock script and reads
 * its reply itself, without Lettuce's event loop in between.
 *
 * <p><b>Internal:</b> public only for the other {@code io.github.redislock.core.*} packages; no API, no compatibility promise.
 */
package io.github.redislock.core.connection;
