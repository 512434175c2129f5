/**
 * Waking waiters without polling: the release subscriptions a locker shares among its waits (classic or sharded pub/sub), the channel of each lock, and the inbox of queued hand-offs that a releasing owner addresses to the next waiter.
 *
 * <p><b>Internal:</b> an implementation part of the lockers in {@link io.github.redislock.core}. Its types
 * are public only so that the other {@code io.github.redislock.core.*} packages can reach them; they are no
 * API, carry no compatibility promise, and may change or go in any release. Applications use the
 * {@link io.github.redislock.Locker} interfaces and the lockers instead.
 */
package io.github.redislock.core.pubsub;
