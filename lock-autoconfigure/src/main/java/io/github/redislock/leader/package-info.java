/**
 * Leader election on a {@link io.github.redislock.Locker}'s locks:
 * {@link io.github.redislock.leader.LockerLeaderElection}, the {@link io.github.redislock.LeaderElection}
 * that needs no Spring Integration.
 */
package io.github.redislock.leader;
