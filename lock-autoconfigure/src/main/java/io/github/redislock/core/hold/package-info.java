/**
 * What a locker holds: one {@link io.github.redislock.core.hold.Hold} per acquisition with its keys, lease and watchdog registration, the registry of the holds of a locker, their release (including {@code holdAtLeast}) and the lost-lock events.
 */
package io.github.redislock.core.hold;
