package io.github.redislock.core;

import io.github.redislock.LockLostException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * The fencing token a blocking locker's everyday acquisition leaves undrawn, drawn when the holder asks (issue 33): only a
 * hold Redis still has gets one, and per key tokens rise across holders whichever of them asked, across a hand-off to a queued
 * waiter and a restarted count too.
 */
class TokenAskTest extends TwoInstances {

    @Test
    void aTokenAskedAfterTheLeaseEndedAndAnotherOwnerTookTheKeyThrowsLockLostAndDrawsNothing() throws InterruptedException {
        assertThat(first.locker.tryLock(key, 0, 100, TimeUnit.MILLISECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !first.locker.isLocked(key));
        second.locker.lock(key);
        long clockReads = timeCalls();

        assertThatThrownBy(() -> first.locker.fencingToken(key)).isInstanceOf(LockLostException.class)
                .hasMessageContaining("'" + key + "'").hasMessageContaining(first.locker.currentOwner());
        assertThat(timeCalls()).as("TIME calls: no token drawn").isEqualTo(clockReads);
        second.locker.unlock(key);
    }

    @Test
    void aLostHoldThatNeverDrewATokenReportsTokenZeroAndOneThatDrewItReportsIt() {
        first.locker.lock(key);
        first.locker.lock(key + "-asked");
        long asked = first.locker.fencingToken(key + "-asked");
        first.redis.delete(List.of(keys.name(), first.redisKey(key + "-asked")));

        await().atMost(Duration.ofSeconds(5)).until(() -> first.lostEvents.size() == 2);
        assertThat(first.lostEvents).extracting(event -> event.getKey(), event -> event.getFencingToken())
                .containsExactlyInAnyOrder(tuple(key, 0L), tuple(key + "-asked", asked));
    }

    @Test
    void tokensRiseAcrossHoldersWhenOnlySomeAskIncludingAHandOffAndARestartedCount() throws Exception {
        List<Long> tokens = new ArrayList<>();
        first.locker.lock(key);
        tokens.add(first.locker.fencingToken(key)); // drawn at the ask
        first.locker.unlock(key);
        first.locker.lock(key); // a holder that never asks
        Future<Long> handedOver = threads.submit(() -> {
            second.locker.lock(key); // handed over by the release below: its token is drawn then
            long token = second.locker.fencingToken(key);
            second.locker.unlock(key);
            return token;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> first.redis.opsForList().size(keys.waitQueue()) == 1);
        first.locker.unlock(key);
        tokens.add(handedOver.get(10, TimeUnit.SECONDS));
        second.locker.lock(key); // another holder that never asks
        second.locker.unlock(key);
        // a count Redis still has for an owner whose client knows of no hold restarts at 1: a new hold, with a new token
        first.redis.opsForHash().put(keys.name(), first.locker.currentOwner(), "1");
        first.locker.lock(key);
        tokens.add(first.locker.fencingToken(key));
        first.locker.unlock(key);
        first.locker.lock(key);
        tokens.add(first.locker.fencingToken(key)); // a plain one again, asked for
        first.locker.unlock(key);

        assertThat(tokens).doesNotContain(0L);
        assertThat(tokens).as("per key, in holding order").isSorted().doesNotHaveDuplicates();
    }

    private static long timeCalls() {
        return TestRedis.shared().commandCount("time");
    }
}
