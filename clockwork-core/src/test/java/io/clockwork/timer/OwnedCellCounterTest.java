package io.clockwork.timer;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

class OwnedCellCounterTest {

    @Test
    void oneThreadCountsExactly() {
        OwnedCellCounter counter = new OwnedCellCounter();
        assertThat(counter.sum()).isZero();
        for (int i = 0; i < 1000; i++) {
            counter.increment();
        }
        assertThat(counter.sum()).isEqualTo(1000);
    }

    @Test
    void moreThreadsThanCellsLoseNoBump() throws Exception {
        // 100 threads over at most 64 cells: some hash to a cell another thread owns and must use the shared
        // adder instead, and threads that die keep their cells, so every path is taken.
        OwnedCellCounter counter = new OwnedCellCounter();
        int threads = 100;
        int perThread = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    counter.increment();
                }
            });
            thread.start();
            started.add(thread);
        }
        start.countDown();
        long seen = 0;
        for (Thread thread : started) {
            long now = counter.sum();
            assertThat(now).as("the count only grows").isGreaterThanOrEqualTo(seen);
            seen = now;
            thread.join(60_000);
            assertThat(thread.isAlive()).as("thread finished within a minute").isFalse();
        }
        assertThat(counter.sum()).isEqualTo((long) threads * perThread);
    }
}
