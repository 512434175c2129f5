/**
 * Waking waiters without polling: the release subscriptions a locker shares among its waits (classic or sharded pub/sub), the channel of each lock, and the inbox of queued hand-offs that a releasing owner addresses to the next waiter.
 */
package io.github.redislock.core.pubsub;
