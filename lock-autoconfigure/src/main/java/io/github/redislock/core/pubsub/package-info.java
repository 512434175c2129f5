/**
 * Waking waiters without polling: the release subscriptions a locker shares among its waits (classic or sharded pub/sub), the channel of each lock, and the inbox of queued hand-offs that a releasing owner addresses to the next waiter.
 *
 * <p><b>Internal</b>, public only for the other sub-packages of {@link io.github.redislock.core} (see there): no API.
 */
package io.github.redislock.core.pubsub;
