package io.github.redislock;

/**
 * Redis could not carry out a lock command: unreachable, timed out, or it refused the command (a
 * key of another type, a missing permission). The cause is the Redis client's exception.
 */
public class LockRedisException extends LockException {

    public LockRedisException(String message, Throwable cause) {
        super(message, cause);
    }
}
