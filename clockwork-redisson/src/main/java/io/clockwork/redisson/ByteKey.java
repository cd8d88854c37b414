package io.clockwork.redisson;

import java.util.Arrays;

/**
 * An encoded element as a map key: equal when the bytes are equal, as Redis compares values. Immutable and
 * thread-safe (the array is never written after construction).
 *
 * <p>It is {@link Comparable} (unsigned lexicographic order) so that a {@link java.util.HashMap} bin of colliding
 * keys turns into a tree: a flood of values chosen to collide costs O(log n) per lookup, not O(n).
 */
final class ByteKey implements Comparable<ByteKey> {

    final byte[] bytes;
    private final int hash;

    ByteKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey other && hash == other.hash && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(ByteKey other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public String toString() {
        return "ByteKey[" + bytes.length + " bytes]";
    }
}
