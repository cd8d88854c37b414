package io.clockwork.engine;

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
    void aBatchArrivesWholeInArrayOrderBetweenSingleOffers() {
        MpscInbox<TestEntry> inbox = new MpscInbox<>(1);
        inbox.offer(new TestEntry(0, 0));
        TestEntry[] batch = {new TestEntry(1, 0), new TestEntry(2, 0), new TestEntry(3, 0), new TestEntry(99, 0)};
        inbox.offerAll(batch, 3);
        inbox.offer(new TestEntry(4, 0));
        List<Integer> got = new ArrayList<>();
        assertThat(inbox.drain(e -> got.add(e.id))).isEqualTo(5);
        assertThat(got).containsExactly(0, 1, 2, 3, 4);
        assertThatThrownBy(() -> inbox.offerAll(batch, 0)).hasMessageContaining("count");
        assertThatThrownBy(() -> inbox.offerAll(batch, 5)).hasMessageContaining("count");
    }

    @Test
    void aCountingInboxCountsEachEntryOfABatch() {
        // 3-bit numbers wrap every 8 offers: the batch's numbers run 6 to 11, across the wrap
        MpscInbox<SequencedEntry> inbox = new MpscInbox<>(1, SEQUENCER, 3);
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            inbox.offer(new SequencedEntry(i));
        }
        inbox.drain(e -> got.add(e.id));
        SequencedEntry[] batch = new SequencedEntry[6];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new SequencedEntry(5 + i);
        }
        inbox.offerAll(batch, batch.length);
        assertThat(inbox.offeredCount()).isEqualTo(11);
        inbox.drain(e -> got.add(e.id));
        assertThat(got).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        assertThat(inbox.offeredCount()).isEqualTo(11);
    }

    @Test
    void producerCountMustBePositive() {
        assertThatThrownBy(() -> new MpscInbox<TestEntry>(0)).hasMessageContaining("producers");
    }

    /** Keeps the sequence number in a field of its own, which is all the inbox needs. */
    private static final MpscInbox.Sequencer<SequencedEntry> SEQUENCER = new MpscInbox.Sequencer<>() {
        @Override
        public int sequence(SequencedEntry e) {
            return e.sequence;
        }

        @Override
        public void sequence(SequencedEntry e, int sequence) {
            e.sequence = sequence;
        }
    };

    private static final class SequencedEntry extends WheelEntry {
        final int id;
        int sequence;

        SequencedEntry(int id) {
            this.id = id;
        }
    }

    @Test
    void aCountingInboxCountsEveryOfferTakenOrNot() {
        MpscInbox<SequencedEntry> inbox = MpscInbox.counting(SEQUENCER);
        assertThat(inbox.offeredCount()).isZero();
        for (int i = 0; i < 5; i++) {
            inbox.offer(new SequencedEntry(i));
        }
        assertThat(inbox.offeredCount()).isEqualTo(5);
        List<Integer> got = new ArrayList<>();
        assertThat(inbox.drain(e -> got.add(e.id))).isEqualTo(5);
        assertThat(got).containsExactly(0, 1, 2, 3, 4);
        assertThat(inbox.offeredCount()).as("taken entries stay counted").isEqualTo(5);
        assertThat(inbox.isEmpty()).isTrue();
        inbox.offer(new SequencedEntry(5));
        assertThat(inbox.offeredCount()).isEqualTo(6);
        assertThat(inbox.drain(e -> got.add(e.id))).isEqualTo(1);
        assertThat(inbox.offeredCount()).isEqualTo(6);
    }

    @Test
    void discardDropsEveryWaitingEntryAndSaysHowMany() {
        MpscInbox<TestEntry> plain = new MpscInbox<>(4);
        MpscInbox<SequencedEntry> counting = MpscInbox.counting(SEQUENCER);
        assertThat(plain.discard()).isZero();
        assertThat(counting.discard()).isZero();
        for (int i = 0; i < 7; i++) {
            plain.offer(new TestEntry(i, 0));
            counting.offer(new SequencedEntry(i));
        }
        assertThat(plain.discard()).isEqualTo(7);
        assertThat(counting.discard()).isEqualTo(7);
        assertThat(plain.isEmpty()).isTrue();
        assertThat(counting.isEmpty()).isTrue();
        assertThat(counting.offeredCount()).as("dropped entries stay counted").isEqualTo(7);
        plain.offer(new TestEntry(7, 0));
        counting.offer(new SequencedEntry(7));
        counting.offer(new SequencedEntry(8));
        List<Integer> got = new ArrayList<>();
        assertThat(plain.drain(e -> got.add(e.id))).isEqualTo(1);
        assertThat(counting.drain(e -> got.add(e.id))).isEqualTo(2);
        assertThat(got).containsExactly(7, 7, 8);
        assertThat(counting.offeredCount()).isEqualTo(9);
    }

    @Test
    void countsStayExactWhenSequenceNumbersWrap() {
        // 3-bit numbers wrap every 8 offers; the marker's 64-bit total must carry the count across.
        MpscInbox<SequencedEntry> inbox = new MpscInbox<>(1, SEQUENCER, 3);
        int offered = 0;
        int taken = 0;
        for (int round = 0; round < 50; round++) {
            int n = round % 8; // up to 7 waiting, the most 3 bits can tell apart from the base
            for (int i = 0; i < n; i++) {
                inbox.offer(new SequencedEntry(offered++));
                assertThat(inbox.offeredCount()).isEqualTo(offered);
            }
            taken += inbox.drain(e -> { });
            assertThat(inbox.offeredCount()).isEqualTo(offered);
        }
        assertThat(taken).isEqualTo(offered).isGreaterThan(100);
    }

    @Test
    void concurrentCountNeverRunsAheadOfTheOffersAndEndsExact() throws Exception {
        int producers = 4;
        int perProducer = 200_000;
        MpscInbox<SequencedEntry> inbox = new MpscInbox<>(2, SEQUENCER); // producers share stripes
        java.util.concurrent.atomic.AtomicLong begun = new java.util.concurrent.atomic.AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perProducer; i++) {
                        begun.incrementAndGet();
                        inbox.offer(new SequencedEntry(i));
                    }
                    return null;
                }));
            }
            long taken = 0;
            long lastCount = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (taken < (long) producers * perProducer) {
                assertThat(System.nanoTime()).as("all offers taken within a minute (lost entries?)")
                        .isLessThan(deadline);
                taken += inbox.drain(e -> { });
                long count = inbox.offeredCount();
                assertThat(count).as("count never goes back").isGreaterThanOrEqualTo(lastCount)
                        .as("count never exceeds offers begun").isLessThanOrEqualTo(begun.get())
                        .as("count covers what was taken").isGreaterThanOrEqualTo(taken);
                lastCount = count;
            }
            for (Future<?> f : done) {
                f.get(1, TimeUnit.MINUTES);
            }
            assertThat(inbox.offeredCount()).isEqualTo((long) producers * perProducer);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anInboxWithoutSequencerRefusesToCount() {
        assertThatThrownBy(() -> new MpscInbox<TestEntry>().offeredCount())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Sequencer");
        assertThatThrownBy(() -> MpscInbox.counting(null)).hasMessageContaining("sequencer");
    }
}
