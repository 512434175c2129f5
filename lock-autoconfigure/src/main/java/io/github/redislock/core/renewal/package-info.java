/**
 * The watchdog that keeps locks without a lease alive: {@link io.github.redislock.core.renewal.LockWatchdog} renews every watched lock in one batched tick through a {@link io.github.redislock.core.renewal.RenewalClient}, and reports the locks a tick found gone.
 *
 * <p><b>Internal:</b> an implementation part of the lockers in {@link io.github.redislock.core}. Its types
 * are public only so that the other {@code io.github.redislock.core.*} packages can reach them; they are no
 * API, carry no compatibility promise, and may change or go in any release. Applications use the
 * {@link io.github.redislock.Locker} interfaces and the lockers instead.
 */
package io.github.redislock.core.renewal;
