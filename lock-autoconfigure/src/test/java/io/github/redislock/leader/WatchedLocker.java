package io.github.redislock.leader;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.redislock.Locker;
import io.github.redislock.core.WatchdogState;

/** A Locker whose calls by a candidacy a test steps into, to play what happens between them (a pause, a loss) at a chosen point. */
final class WatchedLocker {

    private WatchedLocker() {
    }

    /**
     * {@code locker}, whose methods run {@code beforeEachCall} (given the method's name) first, and whose first successful
     * {@code tryLock} runs {@code afterFirstLock} before it returns.
     */
    static Locker of(Locker locker, Consumer<String> beforeEachCall, Runnable afterFirstLock) {
        AtomicBoolean locked = new AtomicBoolean();
        return (Locker) Proxy.newProxyInstance(Locker.class.getClassLoader(), new Class<?>[] {Locker.class, WatchdogState.Source.class},
                (proxy, method, args) -> {
                    beforeEachCall.accept(method.getName());
                    Object result;
                    try {
                        result = method.invoke(locker, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("tryLock") && Boolean.TRUE.equals(result) && !locked.getAndSet(true)) {
                        afterFirstLock.run();
                    }
                    return result;
                });
    }
}
