package io.github.redislock;

/** The root of the exceptions this library throws for lock operations that could not be carried out. */
public class LockException extends RuntimeException {

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
