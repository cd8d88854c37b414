package io.clockwork.queue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ids an {@link InMemoryDelayedQueue} generates: {@code <prefix>-<n>}, a random base-36 prefix per queue (so ids
 * logged by several queues never mix up) and a counter in base 36. Each id is formatted in a scratch buffer and
 * copied once into its string, so an offer allocates only the string and its bytes (formatting with
 * {@code prefix + Long.toString(n, 36)} allocates two more arrays and a string per id). The counter is atomic, so ids
 * are unique across threads: {@link #next()} formats in a shared buffer and is for the holder of the queue's lock,
 * {@link #nextConcurrent()} formats in a buffer of its own and is for any thread.
 */
final class GeneratedIds {

    private static final int RADIX = 36;
    /** Base-36 digits of the largest long. */
    private static final int MAX_DIGITS = 13;

    private final byte[] scratch;
    private final int prefixLength;
    private final AtomicLong counter = new AtomicLong();

    GeneratedIds() {
        byte[] prefix = (Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, RADIX) + "-")
                .getBytes(StandardCharsets.ISO_8859_1);
        this.prefixLength = prefix.length;
        this.scratch = new byte[prefixLength + MAX_DIGITS];
        System.arraycopy(prefix, 0, scratch, 0, prefixLength);
    }

    /**
     * @return the next id: the prefix and the counter's next value in base 36, as {@link Long#toString(long, int)};
     *         one thread at a time (the queue's lock holder)
     */
    String next() {
        return format(scratch);
    }

    /** @return the next id, as {@link #next()}; any thread, at the cost of a buffer per call */
    String nextConcurrent() {
        return format(scratch.clone());
    }

    private String format(byte[] buffer) {
        long n = counter.incrementAndGet();
        int digits = 1;
        for (long rest = n / RADIX; rest != 0; rest /= RADIX) {
            digits++;
        }
        int end = prefixLength + digits;
        for (int i = end - 1; i >= prefixLength; i--) {
            buffer[i] = (byte) Character.forDigit((int) (n % RADIX), RADIX);
            n /= RADIX;
        }
        return new String(buffer, 0, end, StandardCharsets.ISO_8859_1);
    }
}
