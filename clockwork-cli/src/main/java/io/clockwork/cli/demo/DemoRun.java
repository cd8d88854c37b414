package io.clockwork.cli.demo;

import io.clockwork.cli.CliException;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.RedisDelayedQueue;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of the demo: wires the queue, producer, workers and receipts for the chosen role and backend, shows
 * progress until every order settles (or time runs out), then reports. Not thread-safe: used once, by one thread.
 */
final class DemoRun {

    private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A worker process stops once the queue has had nothing delayed, ready or in flight for this long. */
    private static final long WORKER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(3);

    private final DemoSettings s;
    private final PrintWriter out;
    private final Progress progress;

    DemoRun(DemoSettings settings, PrintWriter out) {
        this.s = settings;
        this.out = out;
        this.progress = new Progress(out, settings.style());
    }

    int run() throws InterruptedException {
        return s.producing() ? runProducer() : runWorkerOnly();
    }

    private DelayedQueue<String> open(String name) {
        if (s.redis() == null) {
            return InMemoryDelayedQueue.<String>builder().name(name).visibilityTimeout(s.visibility())
                    .maxAttempts(DemoSettings.MAX_ATTEMPTS).build();
        }
        return s.redis().open(name, Codec.string(), s.visibility(), DemoSettings.MAX_ATTEMPTS, 0);
    }

    /**
     * Opens a queue that its producer created: a worker's receipts queue, which the producer deletes at the end, so
     * that a late receipt fails instead of creating the queue again.
     */
    private DelayedQueue<String> openExisting(String name) {
        return s.redis().openExisting(name, Codec.string(), s.visibility(), DemoSettings.MAX_ATTEMPTS, 0);
    }

    private String backend() {
        return s.redis() == null ? "in-process queue (InMemoryDelayedQueue)"
                : "Redis queue '" + s.queue() + "' at " + s.redis().where() + " (RedisDelayedQueue)";
    }

    /**
     * Roles all and producer: place the orders, wait until each is cancelled or delivered (or time runs out), read
     * what the queue still holds, delete the run's keys on Redis unless told to keep them, and report.
     */
    private int runProducer() throws InterruptedException {
        String runId = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36 * 36,
                36L * 36 * 36 * 36 * 36 * 36), 36);
        Ledger ledger = new Ledger(runId, s.orders());
        DelayedQueue<String> queue = open(s.queue());
        DelayedQueue<String> receiptQueue = null;
        RedisReceipts sender = null;
        ReceiptCollector collector = null;
        WorkerPool pool = null;
        OrderProducer producer = null;
        Report report = new Report(out);
        boolean cleaned = false;
        try {
            Receipts receipts = ledger::delivered;
            if (s.redis() != null) {
                receiptQueue = open(RedisReceipts.queueName(s.queue(), runId));
                collector = new ReceiptCollector(receiptQueue, ledger);
                sender = RedisReceipts.sender(s.queue(), this::openExisting);
                receipts = sender;
            }
            out.println(String.format(Locale.ROOT, "clockwork demo: %,d orders, %s, %s, run %s", s.orders(),
                    s.working() ? s.workers() + " workers" : "workers in other processes", backend(), runId));
            out.println(String.format(Locale.ROOT, "  deadlines due %s to %s after each order; %d%% paid in time; "
                    + "%s; visibility timeout %s", fmt(OrderProducer.MIN_DELAY),
                    fmt(OrderProducer.MIN_DELAY.plus(s.spread())), s.paidPercent(),
                    !s.working() ? "workers elsewhere" : s.crashes() + " worker crash" + (s.crashes() == 1 ? "" : "es"),
                    fmt(s.visibility())));
            out.flush();
            if (collector != null) {
                collector.start(2);
            }
            if (s.working()) {
                pool = new WorkerPool(queue, receipts, s.crashes(), crashWithin(), s.seed(), progress::event);
                pool.start(s.workers());
            }
            producer = new OrderProducer(queue, ledger, s.paidPercent(), s.spread(), s.redis() != null ? 8 : 0,
                    s.seed());
            boolean timedOut = awaitSettled(ledger, producer, pool);
            progress.finish();
            long elapsed = System.nanoTime() - report.start;
            producer.close();
            if (pool != null) {
                pool.close();
            }
            if (collector != null) {
                collector.close(); // books the receipts that arrived after the last poll
            }
            QueueStats left = stats(queue);
            Report.Cleanup cleanup = Report.Cleanup.NONE;
            if (s.redis() != null) {
                cleaned = true;
                cleanup = s.keep() ? Report.Cleanup.KEPT : delete(queue, receiptQueue);
            }
            return report.producer(s, ledger, producer, pool, left, timedOut, cleanup, Duration.ofNanos(elapsed));
        } finally {
            closeQuietly(producer);
            closeQuietly(pool);
            closeQuietly(collector);
            closeQuietly(sender);
            if (s.redis() != null && !s.keep() && !cleaned) {
                delete(queue, receiptQueue); // the run failed half-way: still leave nothing behind
            }
            closeQuietly(receiptQueue);
            closeQuietly(queue);
        }
    }

    /**
     * Deletes the keys of the run's queues on Redis.
     *
     * @return how many keys went, or a failure to report (the run's outcome stands)
     */
    private static Report.Cleanup delete(DelayedQueue<?>... queues) {
        long keys = 0;
        try {
            for (DelayedQueue<?> q : queues) {
                if (q instanceof RedisDelayedQueue<?> r) {
                    keys += r.delete();
                }
            }
            return Report.Cleanup.deleted(keys);
        } catch (RuntimeException e) {
            return Report.Cleanup.failed(e.getMessage());
        }
    }

    private boolean awaitSettled(Ledger ledger, OrderProducer producer, WorkerPool pool) throws InterruptedException {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread placing = new Thread(() -> {
            try {
                producer.placeAll(s.redis() != null ? 8 : 1);
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "demo-shop");
        placing.setDaemon(true);
        placing.start();
        long deadline = System.nanoTime() + s.timeout().toNanos();
        while (true) {
            boolean placed = !placing.isAlive();
            long settled = ledger.cancelled() + ledger.delivered();
            if (placed && settled >= ledger.scheduled()) {
                progress.update(settled, s.orders(), detail(ledger, pool));
                return false;
            }
            if (failed.get() != null) {
                throw new CliException("placing orders failed: " + failed.get().getMessage(), failed.get());
            }
            if (System.nanoTime() - deadline > 0) {
                progress.event("timed out after " + fmt(s.timeout()) + " waiting for orders to settle");
                return true;
            }
            progress.update(settled, s.orders(), detail(ledger, pool));
            LockSupport.parkNanos(REFRESH_NANOS);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    private static String detail(Ledger ledger, WorkerPool pool) {
        return String.format(Locale.ROOT, "scheduled %,d  paid %,d  delivered %,d%s", ledger.scheduled(),
                ledger.cancelled(), ledger.delivered(),
                pool != null ? String.format(Locale.ROOT, "  expired sessions %d", pool.expiredSessions()) : "");
    }

    /** Role worker: work until the shared queue has been idle for a while after some work, or the timeout. */
    private int runWorkerOnly() {
        Report report = new Report(out);
        DelayedQueue<String> queue = open(s.queue());
        RedisReceipts sender = RedisReceipts.sender(s.queue(), this::openExisting);
        WorkerPool pool = new WorkerPool(queue, sender, s.crashes(), 20, s.seed(), progress::event);
        try {
            out.println(String.format(Locale.ROOT, "clockwork demo (worker): %d workers on %s; waiting for orders",
                    s.workers(), backend()));
            out.flush();
            pool.start(s.workers());
            long start = System.nanoTime();
            long deadline = start + s.timeout().toNanos();
            long idleSince = start;
            long nextStats = start;
            boolean seenWork = false;
            long active = 0;
            while (System.nanoTime() - deadline < 0) {
                long now = System.nanoTime();
                if (now - nextStats >= 0) {
                    nextStats = now + TimeUnit.MILLISECONDS.toNanos(500);
                    try {
                        QueueStats st = queue.stats();
                        active = st.delayed() + st.ready() + st.inFlight();
                    } catch (RuntimeException e) {
                        active = -1; // unknown: Redis hiccup; do not count it as idle
                    }
                    if (active != 0 || pool.deliveries() > 0) {
                        seenWork = true;
                    }
                    if (active != 0) {
                        idleSince = now;
                    }
                    if (seenWork && active == 0 && now - idleSince >= WORKER_IDLE_NANOS) {
                        break;
                    }
                }
                progress.update(pool.acked(), pool.acked() + Math.max(0, active),
                        String.format(Locale.ROOT, "delivered %,d  in queue %,d  expired sessions %d", pool.acked(),
                                Math.max(0, active), pool.expiredSessions()));
                LockSupport.parkNanos(REFRESH_NANOS);
            }
            progress.finish();
            long elapsed = System.nanoTime() - start;
            pool.close();
            return report.worker(pool, sender, seenWork, Duration.ofNanos(elapsed));
        } finally {
            closeQuietly(pool);
            closeQuietly(sender);
            closeQuietly(queue);
        }
    }

    /** A crashing worker crashes early in its share of the work, so its order is redelivered well before the end. */
    private int crashWithin() {
        long expectedPerWorker = (long) s.orders() * (100 - s.paidPercent()) / 100 / s.workers();
        return (int) Math.max(1, Math.min(50, expectedPerWorker / 4));
    }

    /** @return the queue's counts, or null if they cannot be read (the report then says so) */
    private static QueueStats stats(DelayedQueue<String> queue) {
        try {
            return queue.stats();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // closing after the report: nothing useful to add
        }
    }

    static String fmt(Duration d) {
        return io.clockwork.cli.DurationConverter.format(d);
    }
}
