package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;
import io.github.redislock.annotation.AnnotationOnEveryKindTest.Gate;
import io.github.redislock.annotation.AnnotationOnEveryKindTest.SeveralKeys;
import io.github.redislock.annotation.AnnotationOnEveryKindTest.Setup;
import io.github.redislock.annotation.AnnotationOnEveryKindTest.Shape;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis fails the lookup that names the busy key of a multi-key {@code @DistributedLock} failure ({@link BusyKeys}): the
 * failure then names no key as the busy one it cannot know, but all the call's keys and the lookup's failure, on every
 * return shape. The lookup's first command (TYPE, which no lock script of a plain lock runs) is taken from the user with
 * an ACL on a Redis of the test's own: the acquisition works, every lookup fails, with no timing involved.
 */
class BusyKeyLookupFailureTest {

    static Stream<Arguments> everyShapeOnLettuceAndJedis() {
        return Stream.of(Setup.LETTUCE, Setup.JEDIS).flatMap(setup -> Stream.of(Shape.values()).map(shape -> Arguments.of(setup, shape)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyShapeOnLettuceAndJedis")
    void aFailedLookupNamesNoKeyAsTheBusyOneButTheLookupsFailure(Setup setup, Shape shape) {
        try (RedisServerProcess redis = TestRedis.startNew()) { // a Redis of its own: the test narrows its user
            setup.application().withPropertyValues("every-kind.wait=200ms", "spring.data.redis.host=" + redis.host(),
                    "spring.data.redis.port=" + redis.port()).run(context -> {
                Locker other = context.getBean(Locker.class);
                SeveralKeys work = context.getBean(SeveralKeys.class);
                Gate gate = new Gate();
                gate.finish.complete("done");
                String[] keyNames = work.redisKeys(gate.key).stream().map(redisKey -> redisKey.substring("lock:".length())).toArray(String[]::new);
                List<String> keys = other.getMultiLock(keyNames).getKeys(); // in taking order, the lookup's
                String busy = keys.get(keys.size() - 1); // the last: a lookup in taking order reads a free key before it
                other.lock(busy);
                redis.command("ACL", "SETUSER", "default", "-type");
                try {
                    Object outcome = shape.start.apply(work, gate).outcome();

                    assertThat(outcome).as(shape.toString()).isInstanceOf(LockAcquisitionException.class);
                    LockAcquisitionException failure = (LockAcquisitionException) outcome;
                    if (shape.cancellable()) { // an owner token takes the keys one by one: it knows the busy key, not its holder
                        assertThat(failure.getKey()).isEqualTo(busy);
                        assertThat(failure.getMessage()).startsWith("Could not acquire lock '" + busy + "' within PT0.2S: it is held by an owner "
                                + "Redis could not name (").contains("NOPERM");
                    } else { // the thread's multi-lock knows only that one of its keys was busy
                        assertThat(failure.getKey()).isEqualTo(keys.toString());
                        assertThat(failure.getMessage()).startsWith("Could not acquire locks " + keys + " within PT0.2S: could not tell which "
                                + "key is busy, the lookup failed: ").contains("NOPERM");
                        assertThat(failure.getSuppressed()).as("the lookup's failure").singleElement()
                                .satisfies(lookup -> assertThat(lookup).hasMessageContaining("NOPERM"));
                    }
                } finally {
                    redis.command("ACL", "SETUSER", "default", "+type");
                    other.unlock(busy);
                }
            });
        }
    }
}
