package io.clockwork.benchmarks.timer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Each benchmark's setup and one operation work for every rival, on tiny sizes (runs in about a second). */
class BenchmarkSetupTest {

    static List<String> rivals() {
        return Rivals.ALL;
    }

    @ParameterizedTest
    @MethodSource("rivals")
    void scheduleCancelPairCancelsWithBackgroundPending(String timer) {
        ScheduleCancelBenchmark benchmark = new ScheduleCancelBenchmark();
        benchmark.timer = timer;
        benchmark.pending = 1_000;
        benchmark.open();
        try {
            ScheduleCancelBenchmark.Producer producer = new ScheduleCancelBenchmark.Producer();
            producer.open(benchmark);
            for (int i = 0; i < 100; i++) {
                assertThat(benchmark.oneProducer(producer)).isTrue();
            }
        } finally {
            benchmark.close();
        }
    }

    @ParameterizedTest
    @MethodSource("rivals")
    void purgatoryRunsAFewThousandOperations(String timer) {
        PurgatoryBenchmark benchmark = new PurgatoryBenchmark();
        benchmark.timer = timer;
        benchmark.open();
        try {
            for (int i = 0; i < 2 * PurgatoryBenchmark.IN_FLIGHT; i++) {
                benchmark.operation();
            }
        } finally {
            benchmark.close();
        }
    }

    @ParameterizedTest
    @MethodSource("rivals")
    void costRoundRunsTheOperationsAskedForAndSplitsTheirTime(String timer) {
        PurgatoryCostHarness.Round round = PurgatoryCostHarness.measure(timer, 0, 1, 0, 3 * 4096);
        assertThat(round.ops()).isEqualTo(3 * 4096);
        assertThat(round.wall()).isCloseTo(1e3 / round.opsPerMicro(), within(1e-9 * round.wall()));
        // One thread's CPU time cannot exceed the wall time it ran in. (The process's CPU time comes in clock ticks
        // of 10 ms, too coarse for a round this short.)
        assertThat(round.producerCpu()).isPositive().isLessThanOrEqualTo(round.wall() * 1.1);
        assertThat(round.gcPause()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void costRoundByTimeLastsAtLeastThatLong() {
        long roundNanos = TimeUnit.MILLISECONDS.toNanos(20);
        PurgatoryCostHarness.Round round = PurgatoryCostHarness.measure(Rivals.CLOCKWORK, 0, 1, roundNanos, 0);
        assertThat(round.ops() * round.wall()).isGreaterThanOrEqualTo(roundNanos * 0.999);
        assertThat(round.ops() % 4096).isZero();
    }

    @Test
    void nanoTimeCostIsMeasured() {
        assertThat(PurgatoryCostHarness.nanoTimeCost()).isPositive().isLessThan(10_000);
    }

    @ParameterizedTest
    @MethodSource("rivals")
    void latenessRoundRunsEveryTimerNeverMuchEarly(String timer) throws InterruptedException {
        LatenessHarness.Result result = LatenessHarness.measure(timer, 200, 1, 20, 0, 1);
        assertThat(result.samples).isEqualTo(200);
        // Rivals that take milliseconds may round a deadline down by up to a tick; none should be earlier.
        assertThat(result.min).isGreaterThan(-3_000_000L);
    }

    @ParameterizedTest
    @MethodSource("busyNeighbours")
    void busyHeapWithEveryNeighbourOpensAllAndMeasuresTheNamedOne(String timer) {
        BusyHeapBenchmark benchmark = new BusyHeapBenchmark();
        benchmark.timer = timer;
        benchmark.pending = 1_000;
        benchmark.residents = 0;
        benchmark.neighbours = "all";
        benchmark.open();
        try {
            assertThat(benchmark.opened).extracting(TimerRival::name)
                    .containsExactlyElementsOf(BusyHeapBenchmark.NEIGHBOURS);
            assertThat(benchmark.opened).allSatisfy(r -> assertThat(r.pending()).as("%s", r).isEqualTo(1_000));
            assertThat(benchmark.rival.name()).isEqualTo(timer);
            BusyHeapBenchmark.Producer producer = new BusyHeapBenchmark.Producer();
            producer.open(benchmark);
            assertThat(benchmark.oneProducer(producer)).isTrue();
        } finally {
            benchmark.close();
        }
    }

    static List<String> busyNeighbours() {
        return BusyHeapBenchmark.NEIGHBOURS;
    }

    @Test
    void busyJvmLoopIsACopyOfItsOwnThatMakesPairs() throws Exception {
        try (TimerRival rival = Rivals.open(Rivals.CLOCKWORK_KAFKA)) {
            java.util.function.LongUnaryOperator loop = BusyJvmHarness.isolatedLoop(rival.lane(1));
            assertThat(loop.getClass().getName()).isEqualTo(PairLoop.class.getName());
            assertThat(loop.getClass()).as("loaded by a class loader of its own").isNotSameAs(PairLoop.class);
            assertThat(loop.applyAsLong(TimeUnit.MILLISECONDS.toNanos(1))).isGreaterThanOrEqualTo(1_024);
            assertThat(rival.pending()).as("every pair cancelled").isZero();
        }
    }

    @Test
    void busyJvmHarnessRunsEveryRivalInOneJvm() throws Exception {
        BusyJvmHarness.main(new String[] {"--pending", "1000", "--warmup", "0", "--rounds", "1", "--millis", "1"});
    }

    @ParameterizedTest
    @MethodSource("rivals")
    void nodeLayoutIsKnown(String timer) {
        assertThat(RetainedBytesHarness.nodeLayout(timer)).doesNotContain("?");
    }
}
