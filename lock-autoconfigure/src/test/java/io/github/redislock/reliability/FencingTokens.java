package io.github.redislock.reliability;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.OptionalLong;

import io.github.redislock.Locker;

/**
 * Finds the fencing token of the lock the calling thread holds, when the Locker offers one.
 *
 * <p>Why reflection: fencing tokens are being added by another change; the safety checker must run
 * with and without them. Any public method {@code fencingToken(String key)} on the Locker's class
 * returning {@code long}, {@code Long} or {@code OptionalLong} is used; without one, check (C) of the
 * checker is reported as "not available" instead of being skipped silently.
 */
final class FencingTokens {

    private final Method method;

    private FencingTokens(Method method) {
        this.method = method;
    }

    static FencingTokens of(Locker locker) {
        for (String name : new String[] {"fencingToken", "getFencingToken"}) {
            try {
                Method candidate = locker.getClass().getMethod(name, String.class);
                Class<?> type = candidate.getReturnType();
                if (type == long.class || type == Long.class || type == OptionalLong.class) {
                    return new FencingTokens(candidate);
                }
            } catch (NoSuchMethodException e) {
                // try the next name
            }
        }
        return new FencingTokens(null);
    }

    boolean available() {
        return method != null;
    }

    /** The token of the current holder's first acquisition of {@code key}, or empty without fencing. */
    Optional<Long> current(Locker locker, String key) {
        if (method == null) {
            return Optional.empty();
        }
        try {
            Object token = method.invoke(locker, key);
            if (token instanceof OptionalLong optional) {
                return optional.isPresent() ? Optional.of(optional.getAsLong()) : Optional.empty();
            }
            return Optional.ofNullable((Long) token);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot read the fencing token of lock '" + key + "' through " + method, e);
        }
    }
}
