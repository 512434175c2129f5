/**
 * The lock protocol on the wire: the {@code .lua} scripts, what each call sends and how its reply reads, the transport
 * that carries the calls, the batched lease renewal, and the names of a lock's Redis keys and channels.
 *
 * <p><b>Internal:</b> public only for the other {@code io.github.redislock.core.*} packages; no API, no compatibility promise.
 */
package io.github.redislock.core.script;
