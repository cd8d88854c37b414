package io.clockwork.inprocess;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.QueueOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Producers offer and cancel, consumers poll, nack and ack, all at once on the real clock; at the end every message
 * was acked exactly once or cancelled (by a cancel that returned true), never both, and no two consumers ever held
 * one message at the same time.
 */
class InMemoryDelayedQueueStressTest {

    private static final int PRODUCERS = 3;
    private static final int CONSUMERS = 3;
    private static final int PER_PRODUCER = 20_000;

    @Test
    void everyMessageIsAckedExactlyOnceOrCancelled() throws Exception {
        int total = PRODUCERS * PER_PRODUCER;
        AtomicIntegerArray acks = new AtomicIntegerArray(total);
        AtomicIntegerArray cancels = new AtomicIntegerArray(total);
        AtomicInteger settled = new AtomicInteger();
        ConcurrentHashMap<String, Boolean> held = new ConcurrentHashMap<>();
        ExecutorService threads = Executors.newFixedThreadPool(PRODUCERS + CONSUMERS);
        try (InMemoryDelayedQueue<Integer> q = InMemoryDelayedQueue.<Integer>builder().name("stress")
                .maxAttempts(QueueOptions.MAX_MAX_ATTEMPTS).build()) {
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int base = p * PER_PRODUCER;
                done.add(threads.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < PER_PRODUCER; i++) {
                        int n = base + i;
                        // delays from "now" to 20 ms: many fall due while others are still being offered
                        String id = q.offer(n, Duration.ofNanos(random.nextLong(20_000_000L)));
                        if (random.nextInt(10) == 0 && q.cancel(id)) {
                            cancels.incrementAndGet(n);
                            settled.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (int c = 0; c < CONSUMERS; c++) {
                done.add(threads.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (settled.get() < total) {
                        Delivery<Integer> d = q.poll(Duration.ofMillis(20));
                        if (d == null) {
                            continue;
                        }
                        assertThat(held.putIfAbsent(d.id(), Boolean.TRUE)).as("held twice: %s", d.id()).isNull();
                        Thread.yield(); // hold it a moment, giving a wrongly concurrent delivery the chance to show
                        // Released just before giving the message back: from then on another consumer may have it.
                        held.remove(d.id());
                        if (random.nextInt(8) == 0) {
                            d.nack(Duration.ofNanos(random.nextLong(2_000_000L))); // false only if cancelled
                        } else if (d.ack()) {
                            acks.incrementAndGet(d.value());
                            settled.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
            assertThat(q.stats().total()).isZero();
        } finally {
            threads.shutdownNow();
        }
        for (int n = 0; n < total; n++) {
            assertThat(acks.get(n) + cancels.get(n)).as("message %d", n).isOne();
        }
    }
}
