package io.clockwork.benchmarks.expiry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Each expiry benchmark's setup and operations work for every rival, on tiny sizes (runs in about a second). */
class ExpiryBenchmarkSetupTest {

    private static final Blackhole HOLE = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");

    static List<String> queues() {
        return ExpiryRivals.QUEUES;
    }

    static List<String> trackers() {
        return List.of(ExpiryRivals.CLOCKWORK, ExpiryRivals.ZOOKEEPER, ExpiryRivals.ZOOKEEPER_SERVER);
    }

    static List<String> timeCacheMaps() {
        return ExpiryRivals.TIME_CACHE_MAPS;
    }

    static List<String> rotatingMaps() {
        return ExpiryRivals.ROTATING_MAPS;
    }

    @ParameterizedTest
    @MethodSource("queues")
    void touchesMoveElementsOnlyWhenTheirBucketChanges(String queue) {
        ExpiryQueueTouchBenchmark benchmark = new ExpiryQueueTouchBenchmark();
        benchmark.queue = queue;
        benchmark.elements = 1_000;
        benchmark.intervalMs = 60_000;
        benchmark.timeoutMs = 10_000;
        benchmark.open();
        ExpiryQueueTouchBenchmark.Toucher toucher = new ExpiryQueueTouchBenchmark.Toucher();
        toucher.seed();
        for (int i = 0; i < 1_000; i++) {
            benchmark.touch(toucher, HOLE);
        }
        // A 60 s bucket almost never changes during the test, so touches stay where the fill put them.
        assertThat(toucher.moved).isLessThan(1_000);
        assertThat(benchmark.rival.buckets()).isBetween(1, 2);
    }

    @ParameterizedTest
    @MethodSource("trackers")
    void touchedSessionsAreAlive(String tracker) {
        SessionTouchBenchmark benchmark = new SessionTouchBenchmark();
        benchmark.tracker = tracker;
        benchmark.sessions = 1_000;
        benchmark.tickTimeMs = 20;
        benchmark.timeoutMs = 10_000;
        benchmark.open();
        try {
            SessionTouchBenchmark.Toucher toucher = new SessionTouchBenchmark.Toucher();
            toucher.seed();
            for (int i = 0; i < 1_000; i++) {
                assertThat(benchmark.touchSession(toucher)).isTrue();
            }
        } finally {
            benchmark.close();
        }
    }

    @ParameterizedTest
    @MethodSource("queues")
    void stormExpiresEveryElementAtOnce(String queue) throws InterruptedException {
        ExpiryStormBenchmark benchmark = new ExpiryStormBenchmark();
        benchmark.queue = queue;
        benchmark.elements = 1_000;
        benchmark.intervalMs = 50;
        benchmark.prepare();
        assertThat(benchmark.poll(HOLE)).isEqualTo(1_000);
        benchmark.prepare();
        assertThat(benchmark.pollAndRemove()).isEqualTo(1_000);
    }

    @ParameterizedTest
    @MethodSource("timeCacheMaps")
    void expiringMapGetsWhatWasPut(String map) {
        ExpiringMapBenchmark benchmark = new ExpiringMapBenchmark();
        benchmark.map = map;
        benchmark.keys = 1_000;
        benchmark.expirationSecs = 60;
        benchmark.numBuckets = 3;
        benchmark.open();
        try {
            ExpiringMapBenchmark.Worker worker = new ExpiringMapBenchmark.Worker();
            worker.seed();
            for (int i = 0; i < 10_000; i++) {
                benchmark.getOrPut(worker);
            }
            assertThat(worker.misses).isZero();
            assertThat(worker.hits).isBetween(7_000L, 9_000L);
        } finally {
            benchmark.close();
        }
    }

    @ParameterizedTest
    @MethodSource("rotatingMaps")
    void rotatingMapExpiresWhatWasNotPutAgain(String map) {
        MapRival rival = MapRival.rotating(map, Keys.longs(1_000), 3);
        rival.fill();
        assertThat(rival.rotate()).isZero();
        assertThat(rival.rotate()).isZero();
        assertThat(rival.rotate()).isEqualTo(1_000);
        assertThat(rival.size()).isZero();
    }

    @Test
    void retainedBytesAreMeasuredForAMap() throws InterruptedException {
        double[] bytes = ExpiryRetainedBytesHarness.measure("TimeCacheMap", ExpiryRivals.CHM, 100_000);
        assertThat(bytes[0]).isBetween(20.0, 200.0);
        assertThat(ExpiryRetainedBytesHarness.nodeLayout("TimeCacheMap/clockwork")).doesNotContain("?");
        assertThat(ExpiryRetainedBytesHarness.nodeLayout("SessionTracker/zookeeper")).doesNotContain("?");
    }
}
