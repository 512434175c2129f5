package io.github.redislock.core;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;

import io.github.redislock.Locker;

/**
 * A wall clock stepped by {@code step} (NTP, {@code date -s}) after the watchdog read it, played through
 * the watchdog's view: every instant it reports was read {@code step} before the clock moved, which is
 * what a reader of {@link Instant#now()} sees after the step. Its monotonic readings stay as they are.
 */
public final class SteppedWallClock {

    private SteppedWallClock() {
    }

    /** {@code watchdog}, its instants as read before a step of {@code step}. */
    public static WatchdogState view(WatchdogState watchdog, Duration step) {
        return (WatchdogState) Proxy.newProxyInstance(WatchdogState.class.getClassLoader(), new Class<?>[] {WatchdogState.class},
                (proxy, method, args) -> {
                    Object result = invoke(watchdog, method, args);
                    return result instanceof Instant instant ? instant.minus(step) : result;
                });
    }

    /** {@code locker}, whose watchdog reports its instants as read before a step of {@code step}. */
    public static Locker locker(Locker locker, Duration step) {
        WatchdogState.Source source = (WatchdogState.Source) locker;
        return (Locker) Proxy.newProxyInstance(Locker.class.getClassLoader(), new Class<?>[] {Locker.class, WatchdogState.Source.class},
                (proxy, method, args) -> method.getName().equals("watchdogState") && method.getParameterCount() == 0
                        ? view(source.watchdogState(), step)
                        : invoke(locker, method, args));
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
