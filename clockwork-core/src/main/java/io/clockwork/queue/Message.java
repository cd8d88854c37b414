package io.clockwork.queue;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A message to offer: a value plus, optionally, its id, delay, headers and what to do when its id is already known.
 * Immutable and thread-safe: every "with" method returns a new message and leaves this one as it was, so a message
 * can serve as a template for many offers.
 *
 * <pre>{@code
 * Offered o = queue.offer(Message.of(order)
 *         .id("order-42")                       // default: the queue generates one
 *         .delay(Duration.ofMinutes(10))        // default: due now
 *         .header("traceparent", traceparent)   // default: no headers
 *         .onConflict(Message.Conflict.REPLACE)); // default: KEEP
 * }</pre>
 *
 * <p>Every method checks its argument at once, with an error naming the argument (and the limit it breaks), so a
 * message that exists is one every backend accepts, except for the encoded size of its value, which only the queue's
 * codec can measure ({@code maxPayloadBytes}, checked by {@link DelayedQueue#offer(Message)}).
 *
 * <h2>Headers</h2>
 * A small map of strings that travels with the message, for what is about the message rather than in it: trace
 * context, tenant, content type. Consumers read it from {@link Delivery#headers()}; it survives retries, expired
 * visibility timeouts and a requeue from the dead letters, and {@link DeadLetter#headers()} shows it. Names are
 * case-sensitive; iteration order is the order in which names were first set. Limits, all in UTF-8 bytes:
 * at most {@value #MAX_HEADERS} headers; a name is 1 to {@value #MAX_HEADER_NAME_BYTES} bytes of ASCII letters,
 * digits, {@code '-'}, {@code '_'} and {@code '.'}; a value is well-formed Unicode (no unpaired surrogate) of at most
 * {@value #MAX_HEADER_VALUE_BYTES} bytes, and may be empty; names and values together take at most
 * {@value #MAX_HEADERS_BYTES} bytes.
 *
 * <h2>Conflicts</h2>
 * {@link #onConflict(Conflict)} says what an offer does when a message with the same id is already in the queue;
 * see {@link Conflict}. It matters only with a caller's {@link #id(String) id}: a generated id is always new.
 *
 * @param <V> the value type
 */
public final class Message<V> {

    /** The most headers a message carries: 32. */
    public static final int MAX_HEADERS = 32;
    /** The longest header name, in UTF-8 bytes (names are ASCII, so also in chars): 128. */
    public static final int MAX_HEADER_NAME_BYTES = 128;
    /** The longest header value, in UTF-8 bytes: 4,096. */
    public static final int MAX_HEADER_VALUE_BYTES = 4096;
    /** The most UTF-8 bytes all header names and values of a message take together: 8 KiB. */
    public static final int MAX_HEADERS_BYTES = 8192;
    /**
     * The header a {@link io.clockwork.worker.Worker} reads for a job's own timeout, in whole milliseconds; set it
     * with {@link #timeout(Duration)}.
     */
    public static final String TIMEOUT_HEADER = "clockwork-timeout-ms";
    /** Longest job timeout: 1 day. */
    public static final Duration MAX_TIMEOUT = Duration.ofDays(1);
    /**
     * The header that carries a message's priority, a decimal integer in [{@value #MIN_PRIORITY},
     * {@value #MAX_PRIORITY}]; set it with {@link #priority(int)}.
     */
    public static final String PRIORITY_HEADER = "clockwork-priority";
    /** The header that carries a message's group key; set it with {@link #group(String)}. */
    public static final String GROUP_HEADER = "clockwork-group";
    /** Lowest priority: -1000. */
    public static final int MIN_PRIORITY = -1000;
    /** Highest priority: 1000. */
    public static final int MAX_PRIORITY = 1000;
    /** The priority of a message that sets none: 0. */
    public static final int DEFAULT_PRIORITY = 0;
    /** The longest group key, in UTF-8 bytes: 128. */
    public static final int MAX_GROUP_BYTES = 128;

    /**
     * What an offer does when a message with its id is already in the queue. Whatever the policy, an id that is not
     * in the queue (never offered, or acked, cancelled or purged) is added ({@link Offered.Outcome#ADDED}).
     * Thread-safe (an enum).
     */
    public enum Conflict {
        /**
         * Keeps the message that is there, whatever its state, and changes nothing ({@link Offered.Outcome#KEPT}):
         * deduplication, as {@link DelayedQueue#offer(String, Object, Duration)} does.
         */
        KEEP,
        /**
         * Debounce: a message that is still scheduled (delayed or ready) takes this message's value, headers and
         * due time (now + delay), keeping its id and attempts ({@link Offered.Outcome#REPLACED}); it goes behind the
         * messages already due at its new due time, as a new offer would. A message in flight is not touched
         * ({@link Offered.Outcome#IN_FLIGHT}: its consumer works on the old value), nor is a dead one
         * ({@link Offered.Outcome#DEAD}).
         */
        REPLACE,
        /**
         * Moves a message that is still scheduled (delayed or ready) to now + this message's delay, keeping its
         * value, headers and attempts ({@link Offered.Outcome#EXTENDED}), as
         * {@link DelayedQueue#reschedule(String, Duration)} does; this message's value and headers are dropped. A
         * message in flight or dead is not touched ({@link Offered.Outcome#IN_FLIGHT}, {@link Offered.Outcome#DEAD}).
         */
        EXTEND
    }

    private final V value;
    private final String id;
    private final Duration delay;
    private final Map<String, String> headers;
    private final int headerBytes;
    private final Conflict conflict;

    private Message(V value, String id, Duration delay, Map<String, String> headers, int headerBytes,
                    Conflict conflict) {
        this.value = value;
        this.id = id;
        this.delay = delay;
        this.headers = headers;
        this.headerBytes = headerBytes;
        this.conflict = conflict;
    }

    /**
     * Starts a message: no id (the queue generates one), due now, no headers, {@link Conflict#KEEP}.
     *
     * @param value the value, encoded by the queue's codec when offered
     * @param <V>   the value type
     * @return the message
     * @throws NullPointerException if {@code value} is null
     */
    public static <V> Message<V> of(V value) {
        Objects.requireNonNull(value, "value");
        return new Message<>(value, null, Duration.ZERO, Map.of(), 0, Conflict.KEEP);
    }

    /**
     * @param id the caller's id, as for {@link DelayedQueue#offer(String, Object, Duration)}: not empty,
     *           well-formed Unicode, at most {@link DelayedQueue#MAX_ID_BYTES} UTF-8 bytes
     * @return a copy with this id
     * @throws NullPointerException     if {@code id} is null
     * @throws IllegalArgumentException if the id is empty, holds an unpaired surrogate or is too long (the message
     *                                  names {@code id})
     */
    public Message<V> id(String id) {
        return new Message<>(value, QueueChecks.checkMessageId(id), delay, headers, headerBytes, conflict);
    }

    /**
     * @param delay how long until it is due, counted when it is offered; zero or negative: due now; at most
     *              {@link DelayedQueue#MAX_DELAY}
     * @return a copy with this delay
     * @throws NullPointerException     if {@code delay} is null
     * @throws IllegalArgumentException if it exceeds {@link DelayedQueue#MAX_DELAY} (the message names {@code delay}
     *                                  and {@code MAX_DELAY})
     */
    public Message<V> delay(Duration delay) {
        QueueChecks.checkDelay(delay);
        return new Message<>(value, id, delay, headers, headerBytes, conflict);
    }

    /**
     * @param name  the header's name (see "Headers" above)
     * @param value its value; a name set before gets this value and keeps its place
     * @return a copy with this header
     * @throws NullPointerException     if {@code name} or {@code value} is null
     * @throws IllegalArgumentException if the name or value breaks a limit, or the message would exceed
     *                                  {@link #MAX_HEADERS} or {@link #MAX_HEADERS_BYTES} (the message names the
     *                                  header and the limit)
     */
    public Message<V> header(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(headers);
        int bytes = headerBytes + put(copy, name, value);
        return withHeaders(copy, bytes);
    }

    /**
     * Gives the job this message becomes its own timeout: a {@link io.clockwork.worker.Worker} interrupts a handler
     * still running it after this long and counts the attempt as failed (see
     * {@link io.clockwork.worker.JobTimeoutException}), instead of the worker's own timeout. Stored as the header
     * {@value #TIMEOUT_HEADER}, in whole milliseconds (rounded up).
     *
     * @param timeout in (0, {@link #MAX_TIMEOUT}]
     * @return a copy with the timeout header
     * @throws NullPointerException     if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is out of range
     */
    public Message<V> timeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("timeout must be in (0, " + MAX_TIMEOUT + "], was " + timeout);
        }
        long ms = timeout.toMillis() + (timeout.minusMillis(timeout.toMillis()).isZero() ? 0 : 1);
        return header(TIMEOUT_HEADER, Long.toString(ms));
    }

    /**
     * Gives the message a priority: among the messages that are due, a higher priority is delivered first, and
     * within one priority the earlier due time first (then the earlier offer). A delayed message keeps its due time:
     * a high priority does not make it due early. The priority survives retries, expired visibility timeouts,
     * reschedules, promotes and a requeue from the dead letters. Stored as the header {@value #PRIORITY_HEADER}, a
     * decimal integer; {@value #DEFAULT_PRIORITY} removes the header (no header means priority
     * {@value #DEFAULT_PRIORITY}).
     *
     * @param priority in [{@value #MIN_PRIORITY}, {@value #MAX_PRIORITY}]
     * @return a copy with this priority
     * @throws IllegalArgumentException if {@code priority} is out of range (the message names {@code priority})
     */
    public Message<V> priority(int priority) {
        QueueChecks.checkPriority("priority", priority);
        if (priority == DEFAULT_PRIORITY) {
            return without(PRIORITY_HEADER);
        }
        return header(PRIORITY_HEADER, Integer.toString(priority));
    }

    /**
     * Puts the message in a group, such as a tenant or a customer id: among due messages of one priority, a queue
     * delivers round-robin between groups (weighted by {@link QueueOptions.Builder#groupWeight}), and may limit each
     * group's messages in flight ({@link QueueOptions.Builder#maxInFlightPerGroup}) and deliveries per interval
     * ({@link QueueOptions.Builder#groupRateLimit}). Messages without a group form one unnamed group that takes its
     * turn like any other. Stored as the header {@value #GROUP_HEADER}.
     *
     * @param group 1 to {@value #MAX_GROUP_BYTES} UTF-8 bytes of well-formed Unicode without control characters
     * @return a copy in this group
     * @throws NullPointerException     if {@code group} is null
     * @throws IllegalArgumentException if {@code group} breaks a rule (the message names {@code group})
     */
    public Message<V> group(String group) {
        QueueChecks.checkGroup("group", group);
        return header(GROUP_HEADER, group);
    }

    /**
     * @param headers headers to set, in the map's iteration order, as {@link #header(String, String)} sets each;
     *                headers set before stay unless the map names them; empty: a copy of this message
     * @return a copy with these headers added
     * @throws NullPointerException     if {@code headers}, a name or a value is null (named)
     * @throws IllegalArgumentException as for {@link #header(String, String)}
     */
    public Message<V> headers(Map<String, String> headers) {
        Objects.requireNonNull(headers, "headers");
        Map<String, String> copy = new LinkedHashMap<>(this.headers);
        int bytes = headerBytes;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            bytes += put(copy, e.getKey(), e.getValue());
        }
        return withHeaders(copy, bytes);
    }

    /**
     * @param conflict what to do when the id is already in the queue (see {@link Conflict})
     * @return a copy with this policy
     * @throws NullPointerException if {@code conflict} is null
     */
    public Message<V> onConflict(Conflict conflict) {
        Objects.requireNonNull(conflict, "conflict");
        return new Message<>(value, id, delay, headers, headerBytes, conflict);
    }

    /** @return the value */
    public V value() {
        return value;
    }

    /** @return the caller's id; empty if the queue is to generate one */
    public Optional<String> id() {
        return Optional.ofNullable(id);
    }

    /** @return the delay, as given (zero if none was) */
    public Duration delay() {
        return delay;
    }

    /** @return the headers, unmodifiable, in the order their names were first set; empty if none */
    public Map<String, String> headers() {
        return headers;
    }

    /** @return what an offer does when the id is already in the queue */
    public Conflict onConflict() {
        return conflict;
    }

    /** @return the priority ({@link #priority(int)}); {@value #DEFAULT_PRIORITY} if none was set */
    public int priority() {
        String p = headers.get(PRIORITY_HEADER);
        return p == null ? DEFAULT_PRIORITY : Integer.parseInt(p);
    }

    /** @return the group key ({@link #group(String)}); empty if the message is in the unnamed group */
    public Optional<String> group() {
        return Optional.ofNullable(headers.get(GROUP_HEADER));
    }

    /**
     * Checks one header and puts it into {@code into}.
     *
     * @return how many bytes the header adds to the total (its value's change if the name was there)
     */
    private static int put(Map<String, String> into, String name, String value) {
        Objects.requireNonNull(name, "header name");
        Objects.requireNonNull(value, () -> "header '" + name + "' value");
        checkName(name);
        checkReserved(name, value);
        int valueBytes = Utf8.checkWellFormed("header '" + name + "' value", value);
        if (valueBytes > MAX_HEADER_VALUE_BYTES) {
            throw new IllegalArgumentException("header '" + name + "' value must be at most "
                    + MAX_HEADER_VALUE_BYTES + " UTF-8 bytes (Message.MAX_HEADER_VALUE_BYTES), was " + valueBytes);
        }
        String old = into.put(name, value);
        return old == null ? name.length() + valueBytes : valueBytes - Utf8.encodedLength(old);
    }

    /** Checks the value of a header the queue itself reads: priority and group, which decide delivery order. */
    private static void checkReserved(String name, String value) {
        if (name.equals(PRIORITY_HEADER)) {
            int priority;
            try {
                priority = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("header " + PRIORITY_HEADER + " must be a decimal integer in ["
                        + MIN_PRIORITY + ", " + MAX_PRIORITY + "], was '" + value + "'");
            }
            if (!value.equals(Integer.toString(priority))) {
                throw new IllegalArgumentException("header " + PRIORITY_HEADER + " must be a decimal integer in"
                        + " canonical form (no sign '+', no leading zeros), was '" + value + "'");
            }
            QueueChecks.checkPriority("header " + PRIORITY_HEADER, priority);
        } else if (name.equals(GROUP_HEADER)) {
            QueueChecks.checkGroup("header " + GROUP_HEADER, value);
        }
    }

    private Message<V> without(String name) {
        String old = headers.get(name);
        if (old == null) {
            return this;
        }
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.remove(name);
        return withHeaders(copy, headerBytes - name.length() - Utf8.encodedLength(old));
    }

    private static void checkName(String name) {
        if (name.isEmpty() || name.length() > MAX_HEADER_NAME_BYTES) {
            throw new IllegalArgumentException("header name must be 1 to " + MAX_HEADER_NAME_BYTES
                    + " bytes (Message.MAX_HEADER_NAME_BYTES), was " + name.length() + " chars");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean token = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || c == '.';
            if (!token) {
                throw new IllegalArgumentException("header name '" + name + "' may hold only ASCII letters, digits,"
                        + String.format(" '-', '_' and '.'; it has U+%04X at index %d", (int) c, i));
            }
        }
    }

    private Message<V> withHeaders(Map<String, String> copy, int bytes) {
        if (copy.size() > MAX_HEADERS) {
            throw new IllegalArgumentException("headers must be at most " + MAX_HEADERS
                    + " (Message.MAX_HEADERS), were " + copy.size());
        }
        if (bytes > MAX_HEADERS_BYTES) {
            throw new IllegalArgumentException("headers must take at most " + MAX_HEADERS_BYTES
                    + " UTF-8 bytes of names and values together (Message.MAX_HEADERS_BYTES), took " + bytes);
        }
        return new Message<>(value, id, delay, Collections.unmodifiableMap(copy), bytes, conflict);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Message<?> m && value.equals(m.value) && Objects.equals(id, m.id)
                && delay.equals(m.delay) && headers.equals(m.headers) && conflict == m.conflict;
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, id, delay, headers, conflict);
    }

    @Override
    public String toString() {
        return "Message[" + (id != null ? id : "(generated id)") + ", delay " + delay + ", " + headers.size()
                + " header(s), " + conflict + "]";
    }
}
