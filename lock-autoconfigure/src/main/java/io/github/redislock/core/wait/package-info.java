/**
 * Waiting for a busy lock: {@link io.github.redislock.core.wait.LockWait} is the one state machine of a wait, run parked on the calling thread or on an executor, trying the per-kind attempts of {@link io.github.redislock.core.wait.LockAttempts} in the owner turns of shared owners and riding out a short Redis outage.
 *
 * <p><b>Internal</b>, public only for the other sub-packages of {@link io.github.redislock.core} (see there): no API.
 */
package io.github.redislock.core.wait;

import io.github.redislock.core.pubsub.Waiting;
