package io.clockwork.benchmarks.timer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

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
    void latenessRoundRunsEveryTimerNeverMuchEarly(String timer) throws InterruptedException {
        LatenessHarness.Result result = LatenessHarness.measure(timer, 200, 20, 0, 1);
        assertThat(result.samples).isEqualTo(200);
        // Rivals that take milliseconds may round a deadline down by up to a tick; none should be earlier.
        assertThat(result.min).isGreaterThan(-3_000_000L);
    }

    @ParameterizedTest
    @MethodSource("rivals")
    void nodeLayoutIsKnown(String timer) {
        assertThat(RetainedBytesHarness.nodeLayout(timer)).doesNotContain("?");
    }
}
