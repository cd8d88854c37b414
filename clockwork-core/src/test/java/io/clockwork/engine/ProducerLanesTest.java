package io.clockwork.engine;

import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ProducerLanesTest {

    /** An entry that says which thread offered it and in what order. */
    private static final class Item extends WheelEntry {
        final int producer;
        final int seq;

        Item(int producer, int seq) {
            this.producer = producer;
            this.seq = seq;
        }
    }

    @Test
    void entriesComeOutInOfferOrderAcrossChunksWhateverTheDrainPoints() {
        ProducerLanes<Item> lanes = new ProducerLanes<>(4);
        List<Integer> taken = new ArrayList<>();
        int total = 3 * ProducerLanes.CHUNK + 7;
        for (int i = 0; i < total; i++) {
            assertThat(lanes.offer(new Item(0, i))).isTrue();
            // drain at irregular points: mid-chunk, on a link slot, and several chunks at once
            if (i % 37 == 0 || i == 2 * ProducerLanes.CHUNK) {
                assertThat(lanes.isEmpty()).isFalse();
                lanes.drain(e -> taken.add(e.seq));
                assertThat(lanes.isEmpty()).isTrue();
            }
        }
        lanes.drain(e -> taken.add(e.seq));
        assertThat(taken).hasSize(total);
        for (int i = 0; i < total; i++) {
            assertThat(taken.get(i)).isEqualTo(i);
        }
        assertThat(lanes.producedCount()).isEqualTo(total);
        assertThat(lanes.drain(e -> taken.add(-1))).isZero();
        assertThat(lanes.isEmpty()).isTrue();
    }

    @Test
    void aProducerStartingAChunkPastTheBacklogRunsTheBacklogActionUntilTheOwnerTakesItsEntries() {
        AtomicInteger actions = new AtomicInteger();
        ProducerLanes<Item> lanes = new ProducerLanes<>(4, actions::incrementAndGet);
        int perChunk = ProducerLanes.CHUNK - 1; // the last slot links to the next chunk
        assertThat(ProducerLanes.MAX_BACKLOG % perChunk).isZero();
        int offered = 0;
        while (offered < ProducerLanes.MAX_BACKLOG) {
            lanes.offer(new Item(0, offered++));
        }
        assertThat(lanes.backlog()).isEqualTo(offered);
        assertThat(actions).as("no chunk started past the backlog yet").hasValue(0);
        lanes.offer(new Item(0, offered++)); // starts a chunk with one entry too many waiting
        assertThat(actions).hasValue(1);
        for (int i = 1; i < perChunk; i++) {
            lanes.offer(new Item(0, offered++));
        }
        assertThat(actions).as("once per chunk").hasValue(1);
        lanes.offer(new Item(0, offered++));
        assertThat(actions).hasValue(2);

        assertThat(lanes.drain(e -> { })).isEqualTo(offered);
        assertThat(lanes.backlog()).isZero();
        for (int i = 0; i < 3 * ProducerLanes.CHUNK; i++) {
            lanes.offer(new Item(0, offered++));
        }
        assertThat(actions).as("the owner took the backlog").hasValue(2);
    }

    @Test
    void aThreadWhoseCellIsTakenGetsNoLaneAndItsCancelsStillCount() throws Exception {
        ProducerLanes<Item> lanes = new ProducerLanes<>(1);
        assertThat(lanes.offer(new Item(0, 0))).isTrue();
        lanes.countCancel();
        AtomicBoolean otherOffered = new AtomicBoolean(true);
        Thread other = new Thread(() -> {
            otherOffered.set(lanes.offer(new Item(1, 0)));
            lanes.countCancel();
            lanes.countCancel();
        });
        other.start();
        other.join();
        assertThat(otherOffered).as("the only cell is this thread's").isFalse();
        assertThat(lanes.producedCount()).isEqualTo(1);
        assertThat(lanes.cancelledCount()).isEqualTo(3);
    }

    @Test
    void drainedChunksAreNotKeptReachable() {
        ProducerLanes<Item> lanes = new ProducerLanes<>(1);
        Item first = new Item(0, 0);
        WeakReference<Item> firstRef = new WeakReference<>(first);
        lanes.offer(first);
        first = null;
        // fill well past the first chunk, so that both the owner and this producer have left it
        for (int i = 1; i < 3 * ProducerLanes.CHUNK; i++) {
            lanes.offer(new Item(0, i));
        }
        lanes.drain(e -> { });
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (firstRef.get() != null && System.nanoTime() - deadline < 0) {
            System.gc();
        }
        assertThat(firstRef.get()).as("an entry of a chunk both threads left").isNull();
    }

    @Test
    void concurrentProducersAndOneOwnerLoseNothingAndKeepEachProducersOrder() throws Exception {
        // Twelve producers over four lanes: most threads find their cell taken and are refused, as a timer's
        // producers then use the shared inbox; the lane owners race the draining owner thread.
        ProducerLanes<Item> lanes = new ProducerLanes<>(4);
        int producers = 12;
        int perProducer = 200_000;
        CountDownLatch start = new CountDownLatch(1);
        AtomicLong accepted = new AtomicLong();
        AtomicInteger running = new AtomicInteger(producers);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int id = p;
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                int seq = 0;
                for (int i = 0; i < perProducer; i++) {
                    if (lanes.offer(new Item(id, seq))) {
                        seq++;
                    }
                    lanes.countCancel();
                }
                accepted.addAndGet(seq);
                running.decrementAndGet();
            });
            t.start();
            threads.add(t);
        }
        int[] next = new int[producers];
        long[] taken = {0};
        start.countDown();
        while (running.get() > 0) {
            lanes.drain(e -> {
                assertThat(e.seq).as("producer %d's next entry", e.producer).isEqualTo(next[e.producer]);
                next[e.producer]++;
                taken[0]++;
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        lanes.drain(e -> {
            assertThat(e.seq).isEqualTo(next[e.producer]);
            next[e.producer]++;
            taken[0]++;
        });
        assertThat(accepted.get()).as("some producers had lanes").isPositive();
        assertThat(taken[0]).isEqualTo(accepted.get());
        assertThat(lanes.producedCount()).isEqualTo(accepted.get());
        assertThat(lanes.cancelledCount()).isEqualTo((long) producers * perProducer);
        assertThat(lanes.isEmpty()).isTrue();
    }
}
