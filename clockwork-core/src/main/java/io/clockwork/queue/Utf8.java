package io.clockwork.queue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The contract's UTF-8 rules, package-private: the checks of message ids, queue and schedule names, header values and
 * {@link Codec#string()}, which {@link QueueChecks} offers to backends. Stateless and thread-safe.
 *
 * <p>A Java string may hold unpaired surrogates, which no UTF-8 byte sequence represents: {@link String#getBytes}
 * silently writes '?' for each, so two different strings can encode to the same bytes. Both checks here find such
 * strings without allocating: {@link #encodedLength} walks the chars once, counting UTF-8 bytes as it checks
 * surrogate pairing; {@link #containsQuestionMark} lets a codec that has already encoded a string skip that walk
 * whenever the bytes hold no '?', the only byte a replacement can produce.
 */
final class Utf8 {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long HIGHS = 0x8080_8080_8080_8080L;
    private static final long QUESTION_MARKS = '?' * ONES;

    private Utf8() {
    }

    /**
     * Counts the UTF-8 bytes of a string, checking that every surrogate is part of a pair.
     *
     * @param s the string
     * @return its UTF-8 length; or, if it holds an unpaired surrogate, {@code -(index + 1)} for the first one
     */
    static int encodedLength(String s) {
        int n = s.length();
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                return -(i + 1);
            }
        }
        return bytes;
    }

    /**
     * Checks that a string round-trips through UTF-8: the one check of every string that becomes Redis bytes (an id,
     * a queue or schedule name, a header value), so that two different strings never share those bytes.
     *
     * @param argument what the string is, for the error, e.g. {@code "name"}
     * @param s        the string
     * @return its UTF-8 length
     * @throws IllegalArgumentException naming {@code argument} and the first unpaired surrogate
     */
    static int checkWellFormed(String argument, String s) {
        int bytes = encodedLength(s);
        if (bytes < 0) {
            throw new IllegalArgumentException(argument + " must be well-formed Unicode, which round-trips through"
                    + " UTF-8; it has " + describeUnpaired(s, bytes));
        }
        return bytes;
    }

    /**
     * Describes the unpaired surrogate that {@link #encodedLength} found.
     *
     * @param s      the string
     * @param result the negative result of {@link #encodedLength}
     * @return e.g. "an unpaired surrogate U+D800 at index 1"
     */
    static String describeUnpaired(String s, int result) {
        int index = -result - 1;
        return String.format("an unpaired surrogate U+%04X at index %d", (int) s.charAt(index), index);
    }

    /**
     * Tells whether a byte array holds a '?', eight bytes at a time.
     *
     * @param bytes the bytes
     * @return true if one of them is '?'
     */
    static boolean containsQuestionMark(byte[] bytes) {
        int i = 0;
        for (int words = bytes.length & ~7; i < words; i += 8) {
            // A byte of x is zero exactly where the word holds '?'; (x - ONES) & ~x & HIGHS is non-zero iff some
            // byte of x is zero (a borrow only ever starts at a zero byte).
            long x = (long) LONGS.get(bytes, i) ^ QUESTION_MARKS;
            if (((x - ONES) & ~x & HIGHS) != 0) {
                return true;
            }
        }
        for (; i < bytes.length; i++) {
            if (bytes[i] == '?') {
                return true;
            }
        }
        return false;
    }
}
