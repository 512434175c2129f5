/**
 * The watchdog that keeps locks without a lease alive: {@link io.github.redislock.core.renewal.LockWatchdog} renews every watched lock in one batched tick through a {@link io.github.redislock.core.renewal.RenewalClient}, and reports the locks a tick found gone.
 */
package io.github.redislock.core.renewal;
