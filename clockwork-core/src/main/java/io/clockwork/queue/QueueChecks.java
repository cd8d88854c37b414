package io.clockwork.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The argument rules the {@link DelayedQueue} contract defines (what a message id, a delay and any text that becomes
 * bytes may be) as the checks its own types and every backend apply, so that all reject bad input alike, with one
 * message naming the argument and the limit. Stateless and thread-safe.
 *
 * <p>A user meets these rules through {@link Message}, {@link QueueOptions} and the queue's methods; this class is
 * the surface through which a backend (and the queue SPI) applies the same rules without repeating them.
 */
public final class QueueChecks {

    private QueueChecks() {
    }

    /**
     * Checks a caller-supplied message id, in one pass over its chars and without allocating.
     *
     * <p>An id must round-trip through UTF-8, because Redis keeps it as UTF-8 bytes: a string with an unpaired
     * surrogate has no UTF-8 form, and encoders write '?' in its place, so "a", U+D800, "b" and "a", U+DC00, "b"
     * would both become {@code "a?b"}. Every backend rejects such ids, so that an id means the same everywhere.
     *
     * @param id the id
     * @return the id
     * @throws NullPointerException     if null (named {@code id})
     * @throws IllegalArgumentException if empty, holding an unpaired surrogate, or longer than
     *                                  {@link DelayedQueue#MAX_ID_BYTES} UTF-8 bytes (the message names {@code id})
     */
    public static String checkMessageId(String id) {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty");
        }
        int bytes = Utf8.checkWellFormed("id", id);
        if (bytes > DelayedQueue.MAX_ID_BYTES) {
            throw new IllegalArgumentException("id must be at most " + DelayedQueue.MAX_ID_BYTES
                    + " UTF-8 bytes, was " + bytes);
        }
        return id;
    }

    /**
     * Checks a delay against {@link DelayedQueue#MAX_DELAY}.
     *
     * @param delay the delay; zero or negative means due now
     * @return {@code delay}
     * @throws NullPointerException     if null (named {@code delay})
     * @throws IllegalArgumentException if it exceeds {@link DelayedQueue#MAX_DELAY} (the message names
     *                                  {@code delay} and {@code MAX_DELAY})
     */
    public static Duration checkDelay(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.compareTo(DelayedQueue.MAX_DELAY) > 0) {
            throw tooLong(delay.toString());
        }
        return delay;
    }

    /**
     * Checks that a string round-trips through UTF-8: the one check of every string that becomes bytes in a store
     * (an id, a queue or schedule name, a header value), so that two different strings never share those bytes.
     *
     * @param argument what the string is, for the error, e.g. {@code "name"}
     * @param s        the string
     * @return its UTF-8 length
     * @throws IllegalArgumentException naming {@code argument} and the first unpaired surrogate
     */
    public static int checkWellFormed(String argument, String s) {
        return Utf8.checkWellFormed(argument, s);
    }

    /**
     * Counts the UTF-8 bytes of a string, checking that every surrogate is part of a pair, without allocating.
     *
     * @param s the string
     * @return its UTF-8 length; or, if it holds an unpaired surrogate, {@code -(index + 1)} for the first one
     */
    public static int utf8Length(String s) {
        return Utf8.encodedLength(s);
    }

    /**
     * Converts a {@code long, TimeUnit} delay into the {@link Duration} the queue's methods take, for the
     * {@code long, TimeUnit} overloads. It compares in {@code unit} first, so amounts too large for a
     * {@code Duration} fail with the same error as any delay above {@link DelayedQueue#MAX_DELAY}, never with an
     * {@link ArithmeticException}; negative amounts below {@code -MAX_DELAY} become {@code -MAX_DELAY}, which means
     * "due now" like any negative delay.
     *
     * @param delay the amount
     * @param unit  its unit
     * @return the delay, in [{@code -MAX_DELAY}, {@code MAX_DELAY}]
     * @throws NullPointerException     if {@code unit} is null
     * @throws IllegalArgumentException if the delay exceeds {@link DelayedQueue#MAX_DELAY}
     */
    static Duration durationOf(long delay, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        // MAX_DELAY in whole units, rounded down (saturated at Long.MAX_VALUE for nanoseconds): a larger amount is
        // above MAX_DELAY, and an amount within +/- this bound converts to a Duration without overflow.
        long max = unit.convert(DelayedQueue.MAX_DELAY);
        if (delay > max) {
            throw tooLong(delay + " " + unit);
        }
        if (delay < -max) {
            return DelayedQueue.MAX_DELAY.negated();
        }
        return Duration.of(delay, unit.toChronoUnit());
    }

    private static IllegalArgumentException tooLong(String given) {
        return new IllegalArgumentException("delay must be at most " + DelayedQueue.MAX_DELAY.toMillis()
                + " ms (DelayedQueue.MAX_DELAY, 2^52 ms: due times are exact doubles), was " + given);
    }

    /**
     * Checks a message's priority ({@link Message#priority(int)}).
     *
     * @param argument what the value is, for the error, e.g. {@code "priority"}
     * @param priority the priority
     * @return the priority
     * @throws IllegalArgumentException naming {@code argument} and the range if it is outside
     *                                  [{@value Message#MIN_PRIORITY}, {@value Message#MAX_PRIORITY}]
     */
    public static int checkPriority(String argument, int priority) {
        if (priority < Message.MIN_PRIORITY || priority > Message.MAX_PRIORITY) {
            throw new IllegalArgumentException(argument + " must be in [" + Message.MIN_PRIORITY + ", "
                    + Message.MAX_PRIORITY + "], was " + priority);
        }
        return priority;
    }

    /**
     * Checks a group key ({@link Message#group(String)}, {@link QueueOptions.Builder#groupWeight}): 1 to
     * {@value Message#MAX_GROUP_BYTES} UTF-8 bytes of well-formed Unicode without control characters (U+0000 to
     * U+001F and U+007F to U+009F), so that it means the same on every backend and prints on one line.
     *
     * @param argument what the key is, for the error, e.g. {@code "group"}
     * @param group    the key
     * @return the key
     * @throws NullPointerException     if null (named {@code argument})
     * @throws IllegalArgumentException naming {@code argument} and the rule it breaks
     */
    public static String checkGroup(String argument, String group) {
        Objects.requireNonNull(group, argument);
        int bytes = Utf8.checkWellFormed(argument, group);
        if (bytes < 1 || bytes > Message.MAX_GROUP_BYTES) {
            throw new IllegalArgumentException(argument + " must be 1 to " + Message.MAX_GROUP_BYTES
                    + " UTF-8 bytes (Message.MAX_GROUP_BYTES), was " + bytes);
        }
        for (int i = 0; i < group.length(); i++) {
            char c = group.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(argument + " must not hold control characters; it has "
                        + String.format("U+%04X at index %d", (int) c, i));
            }
        }
        return group;
    }
}
