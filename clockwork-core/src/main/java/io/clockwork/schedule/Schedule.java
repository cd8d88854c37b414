package io.clockwork.schedule;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.queue.QueueChecks;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A recurring schedule: a name (its id), the message each occurrence carries (value and headers), a
 * {@link ScheduleRule}, a {@link Misfire} policy and an optional spread. Immutable and thread-safe; the setters
 * return copies. {@link Schedules#put(Schedule)} stores it.
 *
 * <p><b>Spread.</b> Schedules due at the same instant (every schedule on {@code 0 * * * *}) make occurrences due at
 * the same millisecond: a stampede on the consumers. {@link #spread(Duration)} delays each occurrence of this
 * schedule by a fixed offset in [0, spread) derived from the name (FNV-1a), the same in every process, so that
 * schedules sharing a rule fall due spread evenly over that window. The fire time in the occurrence's id stays the
 * rule's. Default zero: due exactly at the fire time.
 *
 * @param <V> the value type
 */
public final class Schedule<V> {

    /**
     * The longest name, in UTF-8 bytes: the message id limit {@link DelayedQueue#MAX_ID_BYTES} less room for the
     * {@code @<fire time>} and partition suffix an occurrence id adds.
     */
    public static final int MAX_NAME_BYTES = 200;

    private final String name;
    private final ScheduleRule rule;
    private final Message<V> message;
    private final Misfire misfire;
    private final Duration spread;

    private Schedule(String name, ScheduleRule rule, Message<V> message, Misfire misfire, Duration spread) {
        this.name = name;
        this.rule = rule;
        this.message = message;
        this.misfire = misfire;
        this.spread = spread;
    }

    /**
     * Starts a schedule with {@link Misfire#FIRE_ONCE}, no headers and no spread.
     *
     * @param name  not empty, well-formed Unicode, at most {@link #MAX_NAME_BYTES} UTF-8 bytes
     * @param rule  when it fires
     * @param value what each occurrence carries
     * @param <V>   the value type
     * @return the schedule
     * @throws IllegalArgumentException naming {@code name} if it is empty, malformed or too long
     */
    public static <V> Schedule<V> of(String name, ScheduleRule rule, V value) {
        return new Schedule<>(checkName(name), Objects.requireNonNull(rule, "rule"), Message.of(value),
                Misfire.FIRE_ONCE, Duration.ZERO);
    }

    /**
     * Checks a schedule name.
     *
     * @param name the name
     * @return the name
     * @throws IllegalArgumentException naming {@code name} and the limit
     */
    public static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name must not be empty");
        }
        int bytes = QueueChecks.checkWellFormed("name", name);
        if (bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("name must be at most " + MAX_NAME_BYTES + " UTF-8 bytes (the id limit "
                    + DelayedQueue.MAX_ID_BYTES + " less room for the fire time), was " + bytes);
        }
        return name;
    }

    /**
     * @param name  a header's name, as for {@link Message#header(String, String)}
     * @param value its value
     * @return a copy whose occurrences carry this header
     */
    public Schedule<V> header(String name, String value) {
        return new Schedule<>(this.name, rule, message.header(name, value), misfire, spread);
    }

    /**
     * @param headers headers, as for {@link Message#headers(Map)}
     * @return a copy whose occurrences carry these headers
     */
    public Schedule<V> headers(Map<String, String> headers) {
        return new Schedule<>(name, rule, message.headers(headers), misfire, spread);
    }

    /**
     * @param misfire what to do with fire times missed during a downtime
     * @return a copy with this policy
     */
    public Schedule<V> misfire(Misfire misfire) {
        return new Schedule<>(name, rule, message, Objects.requireNonNull(misfire, "misfire"), spread);
    }

    /**
     * @param spread the window over which occurrences of schedules sharing a fire time are spread (see above); zero
     *               for none; whole milliseconds, at most one hour
     * @return a copy with this spread
     * @throws IllegalArgumentException naming {@code spread} if negative, above one hour or not whole milliseconds
     */
    public Schedule<V> spread(Duration spread) {
        Objects.requireNonNull(spread, "spread");
        if (spread.isNegative() || spread.compareTo(Duration.ofHours(1)) > 0 || spread.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException("spread must be whole milliseconds in [0, 1 h], was " + spread);
        }
        return new Schedule<>(name, rule, message, misfire, spread);
    }

    /** @return the name */
    public String name() {
        return name;
    }

    /** @return the rule */
    public ScheduleRule rule() {
        return rule;
    }

    /** @return the value each occurrence carries */
    public V value() {
        return message.value();
    }

    /** @return the headers each occurrence carries, in order */
    public Map<String, String> headers() {
        return message.headers();
    }

    /** @return the misfire policy */
    public Misfire misfire() {
        return misfire;
    }

    /** @return the spread window (zero: none) */
    public Duration spread() {
        return spread;
    }

    /** @return this schedule's offset in [0, spread) in milliseconds: FNV-1a of the name modulo the spread */
    public long spreadOffsetMillis() {
        return offsetMillis(name, spread.toMillis());
    }

    /**
     * @param name     a schedule name
     * @param spreadMs a spread in milliseconds
     * @return the name's offset in [0, spreadMs), 0 if spreadMs is 0
     */
    public static long offsetMillis(String name, long spreadMs) {
        if (spreadMs <= 0) {
            return 0;
        }
        int h = 0x811c9dc5;
        for (byte b : name.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x01000193;
        }
        return Integer.toUnsignedLong(h) % spreadMs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schedule<?> s && s.name.equals(name) && s.rule.equals(rule) && s.message.equals(message)
                && s.misfire.equals(misfire) && s.spread.equals(spread);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, rule, message, misfire, spread);
    }

    @Override
    public String toString() {
        return "Schedule[" + name + ", " + rule.spec() + ", misfire " + misfire + ", spread " + spread + "]";
    }
}
