package io.clockwork.queue;

/**
 * Cumulative counts of a {@link DelayedQueue}'s events since the queue was created, for sampling: the difference of
 * two samples over the time between them is a rate. Immutable.
 *
 * <p>Each count only grows (on Redis, unless someone deletes the queue's keys). Which events count:
 * <ul>
 *   <li>{@code offered}: messages an offer (or a schedule's occurrence) stored: added, replaced or extended; an offer
 *       that kept an existing message, or found it in flight or dead, stores nothing;</li>
 *   <li>{@code delivered}: messages a poll took (each delivery of a message, so redeliveries count again);</li>
 *   <li>{@code acked}: deliveries whose ack deleted their message;</li>
 *   <li>{@code retried}: messages scheduled again after a nack, or after their visibility timeout passed;</li>
 *   <li>{@code deadLettered}: messages that went to the dead letters: a nack or an expiry after the last allowed
 *       attempt, or a delivery's {@code deadLetter} (also a payload the codec cannot decode).</li>
 *   <li>{@code rateLimited}: polls that found due messages but returned none because a rate limit
 *       ({@link QueueOptions#rateLimit()}, {@link QueueOptions#groupRateLimit()}) held them back; a poll that waits
 *       counts once however long it waits. Always 0 where no rate limit is set.</li>
 * </ul>
 * Cancels, reschedules, releases and requeues of dead letters are not counted.
 *
 * @param offered      messages stored by offers
 * @param delivered    deliveries
 * @param acked        acks that deleted their message
 * @param retried      messages scheduled again after a nack or a visibility timeout
 * @param deadLettered messages moved to the dead letters
 * @param rateLimited  polls held back by a rate limit
 */
public record QueueCounters(long offered, long delivered, long acked, long retried, long deadLettered,
                            long rateLimited) {

    /** Counters of a queue where nothing happened yet. */
    public static final QueueCounters ZERO = new QueueCounters(0, 0, 0, 0, 0, 0);

    /** Validates the counts. */
    public QueueCounters {
        if (offered < 0 || delivered < 0 || acked < 0 || retried < 0 || deadLettered < 0 || rateLimited < 0) {
            throw new IllegalArgumentException("counts must not be negative: offered=" + offered + ", delivered="
                    + delivered + ", acked=" + acked + ", retried=" + retried + ", deadLettered=" + deadLettered
                    + ", rateLimited=" + rateLimited);
        }
    }

    /**
     * Counters of a queue without rate limits.
     *
     * @param offered      messages stored by offers
     * @param delivered    deliveries
     * @param acked        acks that deleted their message
     * @param retried      messages scheduled again after a nack or a visibility timeout
     * @param deadLettered messages moved to the dead letters
     */
    public QueueCounters(long offered, long delivered, long acked, long retried, long deadLettered) {
        this(offered, delivered, acked, retried, deadLettered, 0);
    }

    /**
     * @param other counters to add, e.g. another partition's
     * @return the sums of each count
     */
    public QueueCounters plus(QueueCounters other) {
        return new QueueCounters(offered + other.offered, delivered + other.delivered, acked + other.acked,
                retried + other.retried, deadLettered + other.deadLettered, rateLimited + other.rateLimited);
    }
}
