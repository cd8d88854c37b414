package io.clockwork.inprocess;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.QueueStats;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The in-process queue's dead letters, oldest death first, with the retention: at most a count, none older than an
 * age. Not thread-safe: part of the {@link QueueStore}, owned with it.
 */
final class DeadLetters {

    private static final byte[] NO_PAYLOAD = new byte[0];

    /** Insertion order is death order, so iteration lists the oldest first. */
    private final LinkedHashSet<Item> dead = new LinkedHashSet<>();
    private final ItemsById ids;
    private final long maxCount;
    private final long maxAgeNanos;
    /** Whether payloads are a codec's bytes (else the values themselves, which dead letters do not show). */
    private final boolean keepsBytes;
    /** Dead letters removed by the retention, see {@link QueueStats#trimmed()}. */
    private long trimmed;

    /**
     * @param ids         the table a trimmed or purged dead letter leaves
     * @param maxCount    the most dead letters kept
     * @param maxAgeNanos the oldest a dead letter is kept
     * @param keepsBytes  whether payloads are bytes to show
     */
    DeadLetters(ItemsById ids, long maxCount, long maxAgeNanos, boolean keepsBytes) {
        this.ids = ids;
        this.maxCount = maxCount;
        this.maxAgeNanos = maxAgeNanos;
        this.keepsBytes = keepsBytes;
    }

    /**
     * Makes a detached message whose claim ended as {@link Item#BURIED} a dead letter, dead since {@code now}, and
     * applies the retention.
     */
    void bury(Item m, String reason, long now) {
        m.state = State.DEAD;
        m.error = reason;
        m.token = 0;
        m.due = now; // its time of death
        dead.add(m);
        trim(now);
    }

    /** Takes a dead letter out, for a requeue: it stays known by its id. */
    void remove(Item m) {
        dead.remove(m);
    }

    /**
     * Applies the retention: removes dead letters, oldest first, while there are more than the count or the oldest
     * is older than the age, counting them in {@link #trimmed()}.
     */
    void trim(long now) {
        Iterator<Item> oldestFirst = dead.iterator();
        while (oldestFirst.hasNext()) {
            Item m = oldestFirst.next();
            if (dead.size() <= maxCount && now - m.due <= maxAgeNanos) {
                return;
            }
            oldestFirst.remove();
            forget(m);
            trimmed++;
        }
    }

    /** @return the oldest {@code limit} dead letters at most; without a codec, with empty payloads */
    List<DeadLetter> list(int limit) {
        List<DeadLetter> letters = new ArrayList<>(Math.min(limit, dead.size()));
        for (Item m : dead) {
            if (letters.size() == limit) {
                break;
            }
            byte[] payload = keepsBytes ? (byte[]) m.payload : NO_PAYLOAD;
            letters.add(new DeadLetter(m.id, payload, m.attempts, m.error, m.headers));
        }
        return letters;
    }

    /** Deletes every dead letter; returns how many. */
    long purge() {
        long purged = dead.size();
        for (Item m : dead) {
            forget(m);
        }
        dead.clear();
        return purged;
    }

    int size() {
        return dead.size();
    }

    long trimmed() {
        return trimmed;
    }

    private void forget(Item m) {
        ids.remove(m);
        m.state = State.GONE;
        m.token = 0;
    }
}
