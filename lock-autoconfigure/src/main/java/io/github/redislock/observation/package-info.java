/**
 * Micrometer metrics and observations of the locks: the {@link io.github.redislock.LockObserver} that
 * records acquisitions, hold times, losses and renewals, the gauges of held locks and waiters, and the
 * convention and namer that decide their names and tags, and the guard that keeps any observer's
 * failure out of the locks.
 */
package io.github.redislock.observation;
