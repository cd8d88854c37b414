package io.clockwork.inprocess;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ids an {@link InMemoryDelayedQueue} generates: {@code <prefix>-<n>}, a random base-36 prefix per queue (so ids
 * logged by several queues never mix up) and a counter in base 36. Each id is formatted in the calling thread's
 * scratch buffer and copied once into its string, so an offer allocates only the string and its bytes (formatting
 * with {@code prefix + Long.toString(n, 36)} allocates two more arrays and a string per id). Thread-safe: the counter
 * is atomic and each thread formats in a buffer of its own, so producers generate ids without the queue's lock.
 */
final class GeneratedIds {

    private static final int RADIX = 36;
    /** Base-36 digits of the largest long. */
    private static final int MAX_DIGITS = 13;
    /** Each thread's buffer: room for the longest prefix (a long in base 36 and the dash) and counter. */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[2 * MAX_DIGITS + 1]);

    private final byte[] prefix;
    private final AtomicLong counter = new AtomicLong();

    GeneratedIds() {
        this.prefix = (Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, RADIX) + "-")
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    /** @return the next id: the prefix and the counter's next value in base 36, as {@link Long#toString(long, int)} */
    String next() {
        long n = counter.incrementAndGet();
        int digits = 1;
        for (long rest = n / RADIX; rest != 0; rest /= RADIX) {
            digits++;
        }
        byte[] buffer = SCRATCH.get();
        int prefixLength = prefix.length;
        System.arraycopy(prefix, 0, buffer, 0, prefixLength);
        int end = prefixLength + digits;
        for (int i = end - 1; i >= prefixLength; i--) {
            buffer[i] = (byte) Character.forDigit((int) (n % RADIX), RADIX);
            n /= RADIX;
        }
        return new String(buffer, 0, end, StandardCharsets.ISO_8859_1);
    }
}
