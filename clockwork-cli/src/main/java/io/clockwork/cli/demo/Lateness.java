package io.clockwork.cli.demo;

import java.util.Arrays;

/**
 * Records how late deliveries were (delivery time minus due time, in microseconds) and reports percentiles.
 * Thread-safe.
 *
 * <p>A demo delivers tens of thousands of messages, so keeping every sample (8 bytes each) and sorting once at the
 * end is exact and cheaper to get right than a histogram.
 */
final class Lateness {

    private long[] samples = new long[1024];
    private int size;

    /** @param micros one delivery's lateness; negative values (clock granularity) count as on time */
    synchronized void record(long micros) {
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = Math.max(0, micros);
    }

    /** @return how many were recorded */
    synchronized int count() {
        return size;
    }

    /** @return p50, p99 and max in microseconds, or null if nothing was recorded */
    synchronized Summary summary() {
        if (size == 0) {
            return null;
        }
        long[] sorted = Arrays.copyOf(samples, size);
        Arrays.sort(sorted);
        return new Summary(percentile(sorted, 0.50), percentile(sorted, 0.99), sorted[sorted.length - 1]);
    }

    /** Nearest-rank percentile. */
    private static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /** Percentiles in microseconds. */
    record Summary(long p50, long p99, long max) {
    }
}
