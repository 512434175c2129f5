package io.github.redislock;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;

/** Hands the context's Locker to {@link LockUtil} once every singleton exists, and takes it back on shutdown. */
public final class LockUtilBinding implements SmartInitializingSingleton, DisposableBean {

    private final Locker locker;

    public LockUtilBinding(Locker locker) {
        this.locker = locker;
    }

    @Override
    public void afterSingletonsInstantiated() {
        LockUtil.bind(locker);
    }

    @Override
    public void destroy() {
        LockUtil.unbind(locker);
    }
}
