/** <b>Internal</b> (see {@link io.github.redislock.core}): the quorum of independent masters of a Redlock locker, and its algorithm. */
package io.github.redislock.core.redlock;
