package io.github.redislock.benchmarks.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redislock.benchmarks.BenchmarkOptions;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.report.Row;

import org.junit.jupiter.api.Test;

/** The order of the rounds ({@code --rounds}): pure Java, no Redis. */
class RoundsTest {

    @Test
    void eachRoundTurnsTheOrderByOnePlaceSoEveryImplementationIsFirstOnceInAsManyRounds() {
        List<String> implementations = List.of("redis-lock", "registry-spin", "registry-pubsub");

        assertThat(Rounds.order(implementations, 1)).containsExactly("redis-lock", "registry-spin", "registry-pubsub");
        assertThat(Rounds.order(implementations, 2)).containsExactly("registry-spin", "registry-pubsub", "redis-lock");
        assertThat(Rounds.order(implementations, 3)).containsExactly("registry-pubsub", "redis-lock", "registry-spin");
        assertThat(Rounds.order(implementations, 4)).isEqualTo(Rounds.order(implementations, 1));
    }

    @Test
    void twoImplementationsAlternateAsOldAgainstNewAlwaysDid() {
        List<String> oldAndNew = List.of("baseline", "current");

        assertThat(Rounds.order(oldAndNew, 1)).containsExactly("baseline", "current");
        assertThat(Rounds.order(oldAndNew, 2)).containsExactly("current", "baseline");
        assertThat(Rounds.order(oldAndNew, 3)).containsExactly("baseline", "current");
    }

    @Test
    void aRoundMeasuresEveryImplementationBackToBackAtEachSetupAndMarksTheRowsWithItsNumber() {
        List<LockImplementation> implementations = List.of(fake("a"), fake("b"), fake("c"));
        List<String> measured = new ArrayList<>();

        List<Row> rows = Rounds.measure(context(), "uncontended", 2, implementations, List.of(1, 8), (implementation, threads) -> {
            measured.add(implementation.id() + threads);
            return new Row("uncontended", implementation.id(), implementation.displayName(), threads, 1);
        });

        assertThat(measured).containsExactly("a1", "b1", "c1", "a8", "b8", "c8", "b1", "c1", "a1", "b8", "c8", "a8");
        assertThat(rows).extracting(row -> row.implementationId + row.threads + "@" + row.round)
                .containsExactly("a1@1", "b1@1", "c1@1", "a8@1", "b8@1", "c8@1", "b1@2", "c1@2", "a1@2", "b8@2", "c8@2", "a8@2");
    }

    @Test
    void aSetupGivenTwiceIsMeasuredOnceARound() {
        List<String> measured = new ArrayList<>();

        Rounds.measure(context(), "contended", 1, List.of(fake("a")), List.of(8, 8), (implementation, threads) -> {
            measured.add(implementation.id() + threads);
            return new Row("contended", implementation.id(), implementation.displayName(), threads, 1);
        });

        assertThat(measured).containsExactly("a8");
    }

    @Test
    void withoutTheOptionOldAgainstNewRunsFourRoundsAndTheOtherScenariosOneAsBeforeRounds() {
        assertThat(BenchmarkOptions.parse().roundsOf(Scenarios.OLD_VS_NEW)).isEqualTo(4);
        assertThat(BenchmarkOptions.parse().roundsOf(Scenarios.UNCONTENDED)).isEqualTo(1);
        assertThat(BenchmarkOptions.parse("--rounds=3").roundsOf(Scenarios.CONTENDED)).isEqualTo(3);
        assertThat(BenchmarkOptions.parse("--rounds=3").roundsOf(Scenarios.OLD_VS_NEW)).isEqualTo(3);
    }

    @Test
    void noRoundsIsRejectedNamingTheOption() {
        assertThatThrownBy(() -> BenchmarkOptions.parse("--rounds=0")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rounds");
    }

    private static LockImplementation fake(String id) {
        return new LockImplementation(id, "implementation " + id, settings -> {
            throw new UnsupportedOperationException("never connected");
        }, Optional.empty());
    }

    private static BenchmarkContext context() {
        return new BenchmarkContext(BenchmarkOptions.parse(), null, List.of(), false, new PrintStream(OutputStream.nullOutputStream()));
    }
}
