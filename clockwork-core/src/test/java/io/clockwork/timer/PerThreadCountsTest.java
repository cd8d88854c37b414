package io.clockwork.timer;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

class PerThreadCountsTest {

    @Test
    void sumsCountsOfEveryThread() throws Exception {
        PerThreadCounts counts = new PerThreadCounts();
        int threads = 4;
        int each = 100_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    counts.scheduled();
                    if (i % 4 == 0) {
                        counts.cancelled();
                    }
                }
            });
            w.start();
            workers.add(w);
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        counts.scheduled(); // and this thread
        assertThat(counts.scheduledSum()).isEqualTo((long) threads * each + 1);
        assertThat(counts.cancelledSum()).isEqualTo((long) threads * each / 4);
    }

    @Test
    void cellsOfTerminatedThreadsAreFoldedSoTheRegistryStaysSmall() throws Exception {
        PerThreadCounts counts = new PerThreadCounts();
        int threads = 1_000;
        for (int t = 0; t < threads; t++) {
            // one short-lived thread after another, as a server that schedules from per-request threads
            Thread w = new Thread(() -> {
                counts.scheduled();
                counts.scheduled();
                counts.cancelled();
            });
            w.start();
            w.join();
        }
        assertThat(counts.scheduledSum()).isEqualTo(2L * threads);
        assertThat(counts.cancelledSum()).isEqualTo(threads);
        assertThat(counts.cellCount()).as("cells kept for %d threads that are all gone", threads).isLessThan(40);
    }
}
