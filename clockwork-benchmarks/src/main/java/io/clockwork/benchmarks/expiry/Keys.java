package io.clockwork.benchmarks.expiry;

/**
 * Pre-built elements and keys, and the per-thread random choice among them. Not thread-safe: each benchmark thread
 * owns its {@link #nextRandom} seed.
 *
 * <p>Elements and keys are built before measuring so that no benchmark allocates them: what the figures show is the
 * structure's own cost.
 */
final class Keys {

    private Keys() {
    }

    /**
     * Elements for the ExpiryQueue rivals: plain objects compared by identity, as ZooKeeper's sessions and
     * connections are.
     */
    static Object[] elements(int n) {
        Object[] elements = new Object[n];
        for (int i = 0; i < n; i++) {
            elements[i] = new Element(i);
        }
        return elements;
    }

    /** Boxed map keys {@code 0..n-1}, built once (Storm's tuple ids are {@code Long}s too). */
    static Long[] longs(int n) {
        Long[] keys = new Long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = Long.valueOf(i); // NOPMD: values above 127 are distinct objects anyway
        }
        return keys;
    }

    /** One step of xorshift64*, a cheap generator whose state lives in the calling thread's state object. */
    static long nextRandom(long x) {
        x ^= x >>> 12;
        x ^= x << 25;
        x ^= x >>> 27;
        return x;
    }

    /** Maps the upper 32 bits of a random word to {@code [0, n)} without division. */
    static int index(long random, int n) {
        return (int) (((random * 0x2545F4914F6CDD1DL) >>> 32) * n >>> 32);
    }

    /** A tracked element: identity equality, the identity hash code. */
    static final class Element {
        final int id;

        Element(int id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return "e" + id;
        }
    }
}
