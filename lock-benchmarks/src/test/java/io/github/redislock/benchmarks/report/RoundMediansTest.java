package io.github.redislock.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The medians of rows measured in rounds ({@code --rounds}): pure Java, no Redis. */
class RoundMediansTest {

    @Test
    void theMedianOfAnOddCountIsTheMiddleValueAndOfAnEvenCountTheMeanOfTheTwoMiddleOnes() {
        assertThat(RoundMedians.median(List.of(30.0, 10.0, 20.0))).isEqualTo(20.0);
        assertThat(RoundMedians.median(List.of(40.0, 10.0, 30.0, 20.0))).isEqualTo(25.0);
    }

    @Test
    void aFigureARoundDidNotMeasureIsLeftOutOfTheMedian() {
        assertThat(RoundMedians.median(List.of(10.0, Double.NaN, 30.0))).isEqualTo(20.0);
        assertThat(RoundMedians.median(List.of(Double.NaN))).isNaN();
    }

    @Test
    void eachFigureOfTheMedianRowIsTheMedianOfThatFigureOverTheRounds() {
        Row row = RoundMedians.medianRow(List.of(uncontended("redis-lock", 1, 1, 9_000, 50), uncontended("redis-lock", 1, 2, 12_000, 40),
                uncontended("redis-lock", 1, 3, 10_000, 60)));

        assertThat(row.opsPerSecond).isEqualTo(10_000);
        assertThat(row.clientCpuMicrosPerOp).isEqualTo(50);
        assertThat(row.rounds).extracting(r -> r.round).containsExactly(1, 2, 3);
        assertThat(row.note).isEmpty();
    }

    @Test
    void aRoundThatFailedOrSawAViolationMarksTheMedianRowAndViolationsAreAddedUp() {
        Row failed = contended("redis-lock", 2, 0);
        failed.addNote("FAILED: timeout");
        Row medianRow = RoundMedians.medianRow(List.of(contended("redis-lock", 1, 0), failed, contended("redis-lock", 3, 2)));

        assertThat(medianRow.note).isEqualTo("round 2: FAILED: timeout");
        assertThat(medianRow.violations).isEqualTo(2);
    }

    @Test
    void aHeldLocksMedianRowTakesTheMedianTimesAndTheMostKeysAndThreadsAnyRoundLeft() {
        Row row = RoundMedians.medianRow(List.of(held(1, 3.4, 0, 8), held(2, 2.9, 3, 9), held(3, 3.1, 0, 8)));

        assertThat(row.takeSeconds).isEqualTo(3.1);
        assertThat(row.renewalTicks).as("what the goal check weighs the calls per tick by").isEqualTo(10.0);
        assertThat(row.heldLocks).isEqualTo(100_000);
        assertThat(row.keysLeft).as("a key one round left in Redis").isEqualTo(3);
        assertThat(row.threadsAdded).isEqualTo(9);
    }

    @Test
    void aWaitersMedianRowShowsTheFewestWaitersARoundServedOnceAndTheMostHandOffsOutOfQueueOrder() {
        Row row = RoundMedians.medianRow(List.of(queued(1, 100, 0), queued(2, 99, 0), queued(3, 100, 2)));

        assertThat(row.servedOnce).isEqualTo(99);
        assertThat(row.outOfQueueOrder).isEqualTo(2);
    }

    @Test
    void aNoteEveryRoundMadeAlikeIsSaidOnce() {
        List<Row> rounds = List.of(contended("redis-lock", 1, 0), contended("redis-lock", 2, 0));
        rounds.forEach(r -> r.addNote("looping, as in scenario 2"));

        assertThat(RoundMedians.medianRow(rounds).note).isEqualTo("looping, as in scenario 2");
    }

    @Test
    void theMedianRowsStandInTheOrderOfARunOfOneRoundAndOtherScenariosKeepTheirPlaces() {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("first", "x", "x", 1, 1));
        for (int round = 1; round <= 2; round++) {
            List<String> order = round == 1 ? List.of("a", "b") : List.of("b", "a");
            for (int threads : new int[] {1, 8}) {
                for (String id : order) {
                    rows.add(uncontended(id, threads, round, 1_000, 10));
                }
            }
        }
        rows.add(new Row("last", "y", "y", 1, 1));

        List<Row> medians = RoundMedians.of(rows, List.of("uncontended"));

        assertThat(medians).extracting(row -> row.scenario + ":" + row.implementationId + row.threads + "x" + row.rounds.size())
                .containsExactly("first:x1x0", "uncontended:a1x2", "uncontended:a8x2", "uncontended:b1x2", "uncontended:b8x2", "last:y1x0");
    }

    @Test
    void rowsOfOneRoundPassThroughUnchanged() {
        Row alone = uncontended("a", 1, 1, 1_000, 10);

        assertThat(RoundMedians.of(List.of(alone), List.of("uncontended"))).containsExactly(alone);
    }

    static Row uncontended(String id, int threads, int round, double pairsPerSecond, double clientCpuMicros) {
        Row row = new Row("uncontended", id, id.equals("redis-lock") ? "redis-lock (this project)" : id, threads, 1);
        row.round = round;
        row.opsPerSecond = pairsPerSecond;
        row.clientCpuMicrosPerOp = clientCpuMicros;
        row.redisCpuMicrosPerOp = 10;
        row.p50Micros = 100;
        row.p99Micros = 200;
        return row;
    }

    private static Row contended(String id, int round, long violations) {
        Row row = new Row("contended", id, id, 8, 8);
        row.round = round;
        row.opsPerSecond = 1_000;
        row.violations = violations;
        return row;
    }

    private static Row held(int round, double takeSeconds, long keysLeft, int threadsAdded) {
        Row row = new Row("held-locks", "redis-lock", "redis-lock", 4, 4);
        row.round = round;
        row.heldLocks = 100_000;
        row.takeSeconds = takeSeconds;
        row.renewalTicks = 10.0;
        row.keysLeft = keysLeft;
        row.threadsAdded = threadsAdded;
        return row;
    }

    private static Row queued(int round, long servedOnce, long outOfQueueOrder) {
        Row row = new Row("waiters", "redis-lock", "redis-lock", 100, 2);
        row.round = round;
        row.servedOnce = servedOnce;
        row.outOfQueueOrder = outOfQueueOrder;
        return row;
    }
}
