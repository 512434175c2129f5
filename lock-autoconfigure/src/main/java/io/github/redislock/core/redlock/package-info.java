/**
 * The quorum of independent masters of a Redlock locker: the fan-out to every master, the algorithm, the renewal.
 *
 * <p><b>Internal</b> (see {@link io.github.redislock.core}): public only for the other core packages, no API.
 */
package io.github.redislock.core.redlock;
