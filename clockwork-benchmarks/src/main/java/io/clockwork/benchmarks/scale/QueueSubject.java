package io.clockwork.benchmarks.scale;

import io.clockwork.queue.Delivery;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.QueueStats;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Clockwork's {@link InMemoryDelayedQueue} as a {@link Subject}: default options, no codec, so every message holds
 * the same shared value by reference and the bytes measured are the queue's own per message (its item, the
 * generated id and the index entries). Items are offered with {@code offer(value, delay)} and cancelled by the id it
 * returned; a batch is delivered by the calling thread with {@code poll(Duration.ZERO)} and {@code ack()}, one
 * message at a time. Thread-safe, as the queue is.
 *
 * <p>Time: the queue files due times on a 1 ms wheel, so {@link #deliver} starts polling one tick and a margin after
 * the batch's due instant; the span it returns runs from its first poll to its last ack, so it includes the
 * promotion of the due messages to ready, which the first poll does.
 */
final class QueueSubject extends Subject {

    private static final String VALUE = "value";
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().build();
    private int expected;

    QueueSubject() {
        super(QUEUE);
    }

    @Override
    List<String> operations() {
        return List.of("offer", "cancel", "delivery");
    }

    @Override
    String tick() {
        return "1 ms";
    }

    @Override
    Producer producer(int slots) {
        String[] ids = new String[slots];
        return new Producer() {
            @Override
            void scheduleFar(int slot, long delayNanos) {
                ids[slot] = queue.offer(VALUE, Duration.ofNanos(delayNanos));
            }

            @Override
            boolean cancel(int slot) {
                return queue.cancel(ids[slot]);
            }

            @Override
            void fill(long delayNanos) {
                queue.offer(VALUE, Duration.ofNanos(delayNanos));
            }

            @Override
            void scheduleCounted(int slot, long delayNanos) {
                ids[slot] = queue.offer(VALUE, Duration.ofNanos(delayNanos));
            }
        };
    }

    @Override
    long pending() {
        QueueStats stats = queue.stats();
        return stats.delayed() + stats.ready() + stats.inFlight();
    }

    @Override
    void expect(int count) {
        expected = count;
    }

    @Override
    Span deliver(long dueNanos, long timeoutNanos) throws InterruptedException {
        long start = dueNanos + 2 * TICK_NANOS;
        for (long now = System.nanoTime(); now - start < 0; now = System.nanoTime()) {
            LockSupport.parkNanos(start - now);
        }
        long first = System.nanoTime();
        long giveUp = first + timeoutNanos;
        int delivered = 0;
        while (delivered < expected) {
            Delivery<String> d = queue.poll(Duration.ZERO);
            if (d != null) {
                if (!d.ack()) {
                    throw new IllegalStateException("ack of " + d.id() + " failed");
                }
                delivered++;
            } else if (System.nanoTime() - giveUp > 0) {
                throw new IllegalStateException("only " + delivered + " of " + expected + " due messages came in "
                        + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s");
            } else {
                Thread.onSpinWait();
            }
        }
        return new Span(first, System.nanoTime());
    }

    @Override
    public void close() {
        queue.close();
    }
}
