package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/** No thread of redis-lock's own keeps the JVM alive, the watchdog's included: an application ends when its own threads did. */
class DaemonThreadsTest {

    @Test
    void theWatchdogsThreadAndEveryOtherThreadOfTheLockerIsADaemon() {
        try (LockerFixture fixture = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1))) {
            fixture.locker.lock("daemon-threads");
            try {
                List<Thread> ours = Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith("redis-lock-")).toList();
                assertThat(ours).extracting(Thread::getName).contains("redis-lock-watchdog");
                assertThat(ours).as("redis-lock's threads that would keep the JVM alive").allMatch(Thread::isDaemon);
            } finally {
                fixture.locker.unlock("daemon-threads");
            }
        }
    }
}
