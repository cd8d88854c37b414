package io.clockwork.benchmarks.queue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Producer and consumer threads driving one {@link QueueRival}: producers offer 100-byte values (each carries the
 * {@link System#nanoTime()} at which it is meant to fall due: the instant before the offer call plus its delay) in a
 * closed loop or at a fixed rate, never more than {@code maxBacklog} ahead of the consumers; consumers take and, if
 * asked, record lateness (time taken minus intended due time, one clock: everything runs in this JVM). The harness
 * reads the counters around a measurement window. Thread-safe counters; started and stopped by one thread.
 */
final class Workload {

    final QueueRival rival;
    private final int producers;
    private final int consumers;
    private final long minDelayMs;
    private final long maxDelayMs;
    private final long maxBacklog;
    private final double ratePerSecond;
    private final long takeWaitMs;
    private int batch = 1;
    private boolean async;

    final LongAdder offered = new LongAdder();
    final LongAdder taken = new LongAdder();
    /** Operations that failed (e.g. a command timeout while the server runs a long script); the loops go on. */
    final LongAdder failed = new LongAdder();
    final AtomicReference<String> firstFailure = new AtomicReference<>();
    private final AtomicLong ticket = new AtomicLong();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private final List<Thread> producerThreads = new ArrayList<>();
    private final List<Thread> consumerThreads = new ArrayList<>();
    private final List<long[]> samples = new ArrayList<>();
    private final int[] sampleCounts;
    private volatile boolean stopProducers;
    private volatile boolean stopConsumers;
    private volatile long recordFrom = Long.MAX_VALUE;
    private volatile long recordUntil = Long.MAX_VALUE;
    private long startNanos;

    /**
     * @param rival         the queue
     * @param producers     producer threads (0: none)
     * @param consumers     consumer threads
     * @param minDelayMs    shortest delay
     * @param maxDelayMs    longest delay (uniform in between)
     * @param maxBacklog    most offered-but-not-taken messages before producers pause (0: no bound)
     * @param ratePerSecond offers per second over all producers (0: as fast as they can)
     * @param takeWaitMs    how long one take waits
     */
    Workload(QueueRival rival, int producers, int consumers, long minDelayMs, long maxDelayMs, long maxBacklog,
             double ratePerSecond, long takeWaitMs) {
        this.rival = rival;
        this.producers = producers;
        this.consumers = consumers;
        this.minDelayMs = minDelayMs;
        this.maxDelayMs = maxDelayMs;
        this.maxBacklog = maxBacklog;
        this.ratePerSecond = ratePerSecond;
        this.takeWaitMs = takeWaitMs;
        this.sampleCounts = new int[consumers];
        for (int i = 0; i < consumers; i++) {
            samples.add(new long[1 << 16]);
        }
    }

    /**
     * Makes producers and consumers use the queue's batch API with {@code size} values per call (1: the one-message
     * API, the default). Call before {@link #start()}.
     */
    Workload batch(int size) {
        this.batch = size;
        return this;
    }

    /** Makes producers offer each batch as that many asynchronous offers in flight together. Call before start. */
    Workload async() {
        this.async = true;
        return this;
    }

    void start() {
        startNanos = System.nanoTime();
        for (int i = 0; i < consumers; i++) {
            int index = i;
            consumerThreads.add(thread(rival.name + "-consumer-" + i, () -> consume(index)));
        }
        for (int i = 0; i < producers; i++) {
            producerThreads.add(thread(rival.name + "-producer-" + i, this::produce));
        }
    }

    private Thread thread(String name, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                error.compareAndSet(null, e);
                stopProducers = true;
                stopConsumers = true;
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void produce() {
        long periodNanos = ratePerSecond > 0 ? (long) (1e9 / ratePerSecond) : 0;
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        while (!stopProducers) {
            if (maxBacklog > 0 && offered.sum() - taken.sum() + batch > maxBacklog) {
                LockSupport.parkNanos(50_000);
                continue;
            }
            if (periodNanos > 0) {
                long at = startNanos + ticket.getAndIncrement() * periodNanos;
                long now;
                while ((now = System.nanoTime()) < at && !stopProducers) {
                    LockSupport.parkNanos(Math.min(at - now, 1_000_000));
                }
                if (stopProducers) {
                    return;
                }
            }
            long delayMs = minDelayMs == maxDelayMs ? minDelayMs : rnd.nextLong(minDelayMs, maxDelayMs + 1);
            long t0 = System.nanoTime();
            if (batch > 1) {
                String due = value(t0 + TimeUnit.MILLISECONDS.toNanos(delayMs));
                try {
                    if (async) {
                        rival.offerAsync(java.util.Collections.nCopies(batch, due), delayMs);
                    } else {
                        rival.offerBatch(java.util.Collections.nCopies(batch, due), delayMs);
                    }
                    offered.add(batch);
                } catch (RuntimeException e) {
                    failed(e);
                }
                continue;
            }
            try {
                rival.offer(value(t0 + TimeUnit.MILLISECONDS.toNanos(delayMs)), delayMs);
                offered.increment();
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    private void consume(int index) {
        if (batch > 1) {
            consumeBatches(index);
            return;
        }
        while (!stopConsumers) {
            String v;
            try {
                v = rival.take(takeWaitMs);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                failed(e);
                continue;
            }
            if (v == null) {
                continue;
            }
            long now = System.nanoTime();
            taken.increment();
            record(index, v, now);
        }
    }

    private void consumeBatches(int index) {
        while (!stopConsumers) {
            List<String> got;
            try {
                got = rival.takeBatch(batch, takeWaitMs);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                failed(e);
                continue;
            }
            long now = System.nanoTime();
            taken.add(got.size());
            for (String v : got) {
                record(index, v, now);
            }
        }
    }

    /**
     * @param dueNanos when the message is meant to fall due, on {@link System#nanoTime()}'s clock
     * @return a 100-byte value that carries it: the number, ':', then padding (every rival stores the same size)
     */
    static String value(long dueNanos) {
        StringBuilder b = new StringBuilder(100).append(dueNanos).append(':');
        while (b.length() < 100) {
            b.append('x');
        }
        return b.toString();
    }

    private void record(int index, String v, long now) {
        long due = Long.parseLong(v, 0, v.indexOf(':'), 10);
        if (due >= recordFrom && due <= recordUntil) {
            long[] s = samples.get(index);
            int n = sampleCounts[index];
            if (n == s.length) {
                s = Arrays.copyOf(s, n * 2);
                samples.set(index, s);
            }
            s[n] = now - due;
            sampleCounts[index] = n + 1;
        }
    }

    private void failed(RuntimeException e) {
        failed.increment();
        firstFailure.compareAndSet(null, e.toString());
    }

    /** Lateness samples are kept for messages due from now on. */
    void recordFromNow() {
        recordFrom = System.nanoTime();
    }

    /** Stops the producers; messages due after now are not sampled. */
    void stopProducers() throws InterruptedException {
        stopProducers = true;
        recordUntil = System.nanoTime();
        for (Thread t : producerThreads) {
            t.join(30_000);
        }
    }

    /** Lets the consumers take what was offered, for at most {@code maxMs}; returns whether all was taken. */
    boolean drain(long maxMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMs);
        while (taken.sum() < offered.sum()) {
            if (System.nanoTime() > deadline || error.get() != null) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    /** Stops everything and rethrows the first error a thread met. */
    void stop() throws InterruptedException {
        stopProducers();
        stopConsumers = true;
        for (Thread t : consumerThreads) {
            t.join(30_000);
        }
        checkError();
    }

    void checkError() {
        Throwable e = error.get();
        if (e != null) {
            throw new IllegalStateException(rival.name + " workload failed: " + e, e);
        }
    }

    /** @return all lateness samples, sorted, in nanoseconds (only after {@link #stop()}) */
    long[] lateness() {
        int total = 0;
        for (int n : sampleCounts) {
            total += n;
        }
        long[] all = new long[total];
        int at = 0;
        for (int i = 0; i < consumers; i++) {
            System.arraycopy(samples.get(i), 0, all, at, sampleCounts[i]);
            at += sampleCounts[i];
        }
        Arrays.sort(all);
        return all;
    }

    /** @return this JVM's CPU time so far in milliseconds */
    static long jvmCpuMillis() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return TimeUnit.NANOSECONDS.toMillis(sun.getProcessCpuTime());
        }
        return -1;
    }
}
