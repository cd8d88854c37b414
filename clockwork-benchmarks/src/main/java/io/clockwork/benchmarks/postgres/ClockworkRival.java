package io.clockwork.benchmarks.postgres;

import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.queue.Codec;
import io.clockwork.worker.Job;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Clockwork's {@link PostgresDelayedQueue} with its builder's defaults (the library creates its schema), a string
 * codec, and a {@link Worker} with the handler threads asked for and its default, adaptive prefetch; acks are the
 * Worker's, grouped after the handlers return, so a drain ends when the last job is acked
 * ({@link #awaitCompleted}). Offers are {@code offer(payload, delay)} (the due time less the client's now: the queue
 * reckons due times on the database's clock, which on this machine is the same) and
 * {@code offerAll(payloads, delay)} for batches. Thread-safe as {@link JobRival} requires.
 */
final class ClockworkRival extends JobRival {

    static final String NAME = CLOCKWORK;
    private static final String QUEUE = "bench";

    private final PostgresDelayedQueue<String> queue;
    private final int threads;
    private final HandledJobs sink;
    private final AtomicLong acked = new AtomicLong();
    private Worker<String> worker;

    ClockworkRival(DataSource db, int threads, HandledJobs sink) {
        super(NAME);
        this.queue = PostgresDelayedQueue.builder(db, QUEUE, Codec.string()).build();
        this.threads = threads;
        this.sink = sink;
    }

    @Override
    void offer(int id, Instant due) {
        queue.offer(payload(id), Duration.between(Instant.now(), due));
    }

    @Override
    void offerAll(int from, int count, Instant due) {
        List<String> values = new ArrayList<>(count);
        for (int id = from; id < from + count; id++) {
            values.add(payload(id));
        }
        queue.offerAll(values, Duration.between(Instant.now(), due));
    }

    @Override
    void start() {
        acked.set(0);
        WorkerListener<String> acks = new WorkerListener<>() {
            @Override
            public void acked(Job<String> job) {
                acked.incrementAndGet();
            }
        };
        worker = Worker.builder(queue, job -> sink.handled(id(job.value()))).concurrency(threads).listener(acks)
                .build();
    }

    /** The Worker acks in groups after the handlers return: waits for the acks of the jobs handled. */
    @Override
    void awaitCompleted(int jobs, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (acked.get() < jobs) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the worker acked " + acked.get() + " of " + jobs + " within " + limit);
            }
            Thread.sleep(1); // a polling interval of the wait, shorter than any figure it times
        }
    }

    @Override
    void stop() {
        if (worker != null) {
            try {
                worker.shutdown(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the worker stopped", e);
            } finally {
                worker = null;
            }
        }
    }

    @Override
    String api() {
        return "`PostgresDelayedQueue.offer(payload, delay)` / `offerAll(payloads, delay)`; `Worker` with "
                + "`concurrency(" + threads + ")`, default prefetch, acks by the Worker";
    }

    @Override
    public void close() {
        stop();
        queue.close();
    }
}
