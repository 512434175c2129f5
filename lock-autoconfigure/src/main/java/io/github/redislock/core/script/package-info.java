/**
 * The lock protocol on the wire: the {@code .lua} scripts beside {@link io.github.redislock.core.script.LockScript} (with their native-image hints), what each call sends and how its reply reads ({@link io.github.redislock.core.script.LockCommands}), the transport that carries the calls, the batched lease renewal, and the names of the Redis keys and channels a lock uses.
 *
 * <p><b>Internal:</b> an implementation part of the lockers in {@link io.github.redislock.core}. Its types
 * are public only so that the other {@code io.github.redislock.core.*} packages can reach them; they are no
 * API, carry no compatibility promise, and may change or go in any release. Applications use the
 * {@link io.github.redislock.Locker} interfaces and the lockers instead.
 */
package io.github.redislock.core.script;
