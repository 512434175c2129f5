/**
 * {@link io.github.redislock.annotation.DistributedLock}: lock a method with one annotation, its key a
 * SpEL expression over the arguments. The interceptor and the key evaluation are package-private;
 * {@link io.github.redislock.annotation.CurrentLock} gives the method its lock's fencing token.
 */
package io.github.redislock.annotation;
