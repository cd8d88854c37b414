package io.clockwork.cli.demo;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.timer.WheelTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The shop: places orders, each with a payment deadline as a delayed message, and lets most customers pay in time,
 * which cancels the deadline. Thread-safe.
 *
 * <p>Payments arrive on a {@link WheelTimer} (the request-timeout face) at a random point before the deadline; a
 * few customers pay just around it, so their cancel races the delivery and exactly one of the two must win. On Redis
 * each cancel is a round trip, so payments run on a small executor instead of the timer thread.
 */
final class OrderProducer implements AutoCloseable {

    /** Every deadline is at least this far away, so that payments have time to arrive first. */
    static final Duration MIN_DELAY = Duration.ofMillis(500);
    /** Share of paying customers who pay around the deadline rather than well before it. */
    private static final double LATE_PAYERS = 0.02;

    private final DelayedQueue<String> queue;
    private final Ledger ledger;
    private final double paidShare;
    private final long spreadNanos;
    private final long seed;
    private final ExecutorService paymentPool;
    private final WheelTimer payments;
    private final LongAdder offerErrors = new LongAdder();
    private final LongAdder cancelErrors = new LongAdder();
    private volatile long scheduleNanos;

    /**
     * @param queue           the deadlines
     * @param ledger          the run's books
     * @param paidPercent     share of orders paid, 0 to 100
     * @param spread          deadlines fall between {@link #MIN_DELAY} and that plus {@code spread} after the order
     * @param paymentThreads  threads that run payments (cancels); 0 runs them on the timer thread
     * @param seed            random seed
     */
    OrderProducer(DelayedQueue<String> queue, Ledger ledger, int paidPercent, Duration spread, int paymentThreads,
            long seed) {
        this.queue = queue;
        this.ledger = ledger;
        this.paidShare = paidPercent / 100.0;
        this.spreadNanos = spread.toNanos();
        this.seed = seed;
        WheelTimer.Builder b = WheelTimer.builder().name("demo-payments").tick(Duration.ofMillis(1));
        if (paymentThreads > 0) {
            paymentPool = Executors.newFixedThreadPool(paymentThreads, r -> {
                Thread t = new Thread(r, "demo-payments-exec");
                t.setDaemon(true);
                return t;
            });
            b.executor(paymentPool);
        } else {
            paymentPool = null;
        }
        this.payments = b.build();
    }

    /**
     * Places every order, from {@code threads} threads, and returns when all are offered (payments keep arriving).
     *
     * @param threads producing threads
     * @throws InterruptedException if interrupted
     */
    void placeAll(int threads) throws InterruptedException {
        long start = System.nanoTime();
        List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int first = t;
            Thread p = new Thread(() -> place(first, threads), "demo-producer-" + (t + 1));
            p.setDaemon(true);
            producers.add(p);
            p.start();
        }
        for (Thread p : producers) {
            p.join();
        }
        scheduleNanos = System.nanoTime() - start;
    }

    private void place(int first, int step) {
        SplittableRandom random = new SplittableRandom(seed * 31 + first);
        for (int order = first; order < ledger.orders(); order += step) {
            long delayNanos = MIN_DELAY.toNanos() + (long) (random.nextDouble() * spreadNanos);
            String id = ledger.id(order);
            long due = Wall.nowMicros() + delayNanos / 1_000;
            String value = due + " " + (500 + random.nextInt(50_000));
            try {
                if (!queue.offer(id, value, Duration.ofNanos(delayNanos))) {
                    offerErrors.increment(); // an id of an earlier run: cannot happen with a fresh run id
                    continue;
                }
            } catch (RuntimeException e) {
                offerErrors.increment(); // not booked as scheduled: an order the shop failed to place is not lost
                continue;
            }
            ledger.scheduled(order);
            if (random.nextDouble() < paidShare) {
                double at = random.nextDouble() < LATE_PAYERS ? 0.97 + 0.06 * random.nextDouble()
                        : 0.1 + 0.7 * random.nextDouble();
                int o = order;
                payments.schedule(() -> pay(o, id), (long) (delayNanos * at), TimeUnit.NANOSECONDS);
            }
        }
    }

    private void pay(int order, String id) {
        try {
            if (queue.cancel(id)) {
                ledger.cancelled(order);
            } else {
                ledger.latePayment(); // the deadline won: the order was already expired by a worker
            }
        } catch (RuntimeException e) {
            cancelErrors.increment(); // unknown outcome; if the cancel did not happen the order is delivered instead
        }
    }

    /** @return pending payments */
    long pendingPayments() {
        return payments.pendingCount();
    }

    /** @return how long placing all orders took */
    Duration scheduleTime() {
        return Duration.ofNanos(scheduleNanos);
    }

    long offerErrors() {
        return offerErrors.sum();
    }

    long cancelErrors() {
        return cancelErrors.sum();
    }

    @Override
    public void close() {
        payments.stop();
        if (paymentPool != null) {
            paymentPool.shutdownNow();
        }
    }
}
