package io.clockwork.cli.demo;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The producer's side of {@link RedisReceipts}: threads that take this run's receipts from Redis, book them in the
 * {@link Ledger} and ack them. Thread-safe.
 */
final class ReceiptCollector implements AutoCloseable {

    private static final Duration POLL_WAIT = Duration.ofMillis(200);

    private final DelayedQueue<String> receipts;
    private final Ledger ledger;
    private final List<Thread> threads = new ArrayList<>();
    private final LongAdder errors = new LongAdder();
    private volatile boolean running = true;

    /**
     * @param receipts this run's receipts queue
     * @param ledger   the run's books
     */
    ReceiptCollector(DelayedQueue<String> receipts, Ledger ledger) {
        this.receipts = receipts;
        this.ledger = ledger;
    }

    /** @param n how many collecting threads */
    void start(int n) {
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(this::collect, "demo-receipts-" + (i + 1));
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void collect() {
        while (running) {
            try {
                Delivery<String> d = receipts.poll(POLL_WAIT);
                if (d != null) {
                    book(d);
                }
            } catch (InterruptedException | IllegalStateException e) {
                return;
            } catch (RuntimeException e) {
                errors.increment();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
    }

    private void book(Delivery<String> d) {
        long late;
        try {
            late = Long.parseLong(d.value());
        } catch (NumberFormatException e) {
            late = 0;
        }
        ledger.delivered(d.id(), late);
        d.ack();
    }

    /** @return failed polls or acks (retried) */
    long errors() {
        return errors.sum();
    }

    /**
     * Stops the collecting threads, then books the receipts still waiting in the queue, so that an order a worker
     * acked just before the end counts as delivered rather than unsettled. Idempotent.
     */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(6));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        drain();
    }

    private void drain() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        try {
            for (Delivery<String> d = receipts.poll(Duration.ZERO); d != null && System.nanoTime() - deadline < 0;
                    d = receipts.poll(Duration.ZERO)) {
                book(d);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            errors.increment(); // the rest stay unbooked: their orders are reported as not settled
        }
    }
}
