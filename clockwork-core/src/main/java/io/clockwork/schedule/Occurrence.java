package io.clockwork.schedule;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One firing of a schedule: the schedule's name and the fire time, both read from the occurrence's message id
 * {@code <name>@<fire time in epoch ms>} (on a partitioned Redis queue followed by {@code ~<n>}, a suffix that
 * routes the occurrence to its schedule's partition). The id is what makes an occurrence unique: every scheduler
 * derives the same id for the same fire time. Immutable.
 *
 * @param schedule the schedule's name
 * @param fireTime the fire time it stands for
 */
public record Occurrence(String schedule, Instant fireTime) {

    /** Validates the fields. */
    public Occurrence {
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(fireTime, "fireTime");
    }

    /**
     * @param schedule the schedule's name
     * @param fireMillis the fire time in epoch milliseconds
     * @return the id without a partition suffix
     */
    public static String id(String schedule, long fireMillis) {
        return schedule + "@" + fireMillis;
    }

    /**
     * Reads an occurrence from a message id.
     *
     * @param messageId a message id
     * @return the occurrence, or empty if the id is not an occurrence's
     */
    public static Optional<Occurrence> of(String messageId) {
        Objects.requireNonNull(messageId, "messageId");
        int at = messageId.lastIndexOf('@');
        if (at <= 0) {
            return Optional.empty();
        }
        int end = messageId.indexOf('~', at);
        String digits = messageId.substring(at + 1, end < 0 ? messageId.length() : end);
        if (digits.isEmpty() || digits.length() > 19 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.empty();
        }
        return Optional.of(new Occurrence(messageId.substring(0, at), Instant.ofEpochMilli(Long.parseLong(digits))));
    }
}
