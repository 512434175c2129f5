/**
 * What a locker holds: one {@link io.github.redislock.core.hold.Hold} per acquisition with its keys, lease and watchdog registration, the registry of the holds of a locker, their release (including {@code holdAtLeast}) and the lost-lock events.
 *
 * <p><b>Internal:</b> an implementation part of the lockers in {@link io.github.redislock.core}. Its types
 * are public only so that the other {@code io.github.redislock.core.*} packages can reach them; they are no
 * API, carry no compatibility promise, and may change or go in any release. Applications use the
 * {@link io.github.redislock.Locker} interfaces and the lockers instead.
 */
package io.github.redislock.core.hold;
