/**
 * Waiting for a busy lock: {@link io.github.redislock.core.wait.LockWait} is the one state machine of a wait, run parked on the calling thread or on an executor, trying the per-kind attempts of {@link io.github.redislock.core.wait.LockAttempts} in the owner turns of shared owners and riding out a short Redis outage.
 *
 * <p><b>Internal:</b> an implementation part of the lockers in {@link io.github.redislock.core}. Its types
 * are public only so that the other {@code io.github.redislock.core.*} packages can reach them; they are no
 * API, carry no compatibility promise, and may change or go in any release. Applications use the
 * {@link io.github.redislock.Locker} interfaces and the lockers instead.
 */
package io.github.redislock.core.wait;

import io.github.redislock.core.pubsub.Waiting;
