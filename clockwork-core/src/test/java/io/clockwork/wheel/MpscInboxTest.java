package io.clockwork.wheel;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpscInboxTest {

    @Test
    void oneProducersEntriesArriveInOfferOrder() {
        MpscInbox<TestEntry> inbox = new MpscInbox<>();
        assertThat(inbox.isEmpty()).isTrue();
        for (int i = 0; i < 10; i++) {
            inbox.offer(new TestEntry(i, 0));
        }
        assertThat(inbox.isEmpty()).isFalse();
        List<Integer> got = new ArrayList<>();
        assertThat(inbox.drain(e -> got.add(e.id))).isEqualTo(10);
        assertThat(got).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(inbox.isEmpty()).isTrue();
        assertThat(inbox.drain(e -> got.add(e.id))).isZero();
    }

    @Test
    void concurrentProducersLoseNothingAndKeepEachProducersOrder() throws Exception {
        int producers = 4;
        int perProducer = 200_000;
        MpscInbox<TestEntry> inbox = new MpscInbox<>(producers);
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int base = p * perProducer;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perProducer; i++) {
                        inbox.offer(new TestEntry(base + i, 0));
                    }
                    return null;
                }));
            }
            int[] last = new int[producers];
            java.util.Arrays.fill(last, -1);
            int[] received = {0};
            start.countDown();
            // the consumer drains while producers offer, as a wheel's owner does
            while (received[0] < producers * perProducer) {
                inbox.drain(e -> {
                    int producer = e.id / perProducer;
                    assertThat(e.id).as("order of producer %d", producer).isGreaterThan(last[producer]);
                    last[producer] = e.id;
                    received[0]++;
                });
                Thread.onSpinWait();
            }
            for (Future<?> f : done) {
                f.get(1, TimeUnit.MINUTES);
            }
            assertThat(inbox.isEmpty()).isTrue();
            for (int p = 0; p < producers; p++) {
                assertThat(last[p]).isEqualTo((p + 1) * perProducer - 1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void producerCountMustBePositive() {
        assertThatThrownBy(() -> new MpscInbox<TestEntry>(0)).hasMessageContaining("producers");
    }
}
