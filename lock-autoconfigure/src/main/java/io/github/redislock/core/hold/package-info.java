/**
 * What a locker holds: one {@link io.github.redislock.core.hold.Hold} per acquisition with its keys, lease and watchdog registration, the registry of the holds of a locker, their release (including {@code holdAtLeast}) and the lost-lock events.
 *
 * <p><b>Internal</b>, public only for the other sub-packages of {@link io.github.redislock.core} (see there): no API.
 */
package io.github.redislock.core.hold;
