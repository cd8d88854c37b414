package io.clockwork.redis;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The operations of one queue that visit every partition in turn and combine their replies: existence, statistics,
 * counters, dead letters and their purge. Partitions are read one after another, not atomically together.
 * Thread-safe: it keeps no state.
 */
final class AllPartitions {

    private final QueueScripts scripts;
    private final Partitions partitions;
    private final String name;

    AllPartitions(QueueScripts scripts, Partitions partitions, String name) {
        this.scripts = scripts;
        this.partitions = partitions;
        this.name = name;
    }

    /**
     * Deletes every partition's keys: its compact store, then its fixed keys.
     *
     * @return how many keys existed
     * @throws RedisQueueException if Redis fails
     */
    long delete() {
        long deleted = 0;
        for (int p = 0; p < partitions.count(); p++) {
            deleted += scripts.dropCompactStore(p, name);
            deleted += scripts.deletePartition(p, name);
        }
        return deleted;
    }

    /** @return true if some partition has held a message */
    boolean exists() {
        for (int p = 0; p < partitions.count(); p++) {
            if (scripts.exists(p)) {
                return true;
            }
        }
        return false;
    }

    /** @return the partitions' statistics, summed; the earliest next due time */
    QueueStats stats() {
        long delayed = 0;
        long ready = 0;
        long inFlight = 0;
        long dead = 0;
        long lost = 0;
        long trimmed = 0;
        long nextDue = -1;
        for (int p = 0; p < partitions.count(); p++) {
            ScriptReplies.Counts c = scripts.stats(p);
            delayed += c.delayed();
            ready += c.ready();
            inFlight += c.inFlight();
            dead += c.dead();
            lost += c.lost();
            trimmed += c.trimmed();
            if (c.nextDueMs() >= 0 && (nextDue < 0 || c.nextDueMs() < nextDue)) {
                nextDue = c.nextDueMs();
            }
        }
        return new QueueStats(delayed, ready, inFlight, dead, lost,
                nextDue < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(nextDue)), trimmed);
    }

    /** @return the partitions' counters, summed */
    Optional<QueueCounters> counters() {
        QueueCounters sum = QueueCounters.ZERO;
        for (int p = 0; p < partitions.count(); p++) {
            sum = sum.plus(scripts.counters(p, name));
        }
        return Optional.of(sum);
    }

    /**
     * @param limit the most dead letters, at least 1
     * @return the oldest dead letters of all partitions, oldest first
     */
    List<DeadLetter> deadLetters(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        List<ScriptReplies.Dead> all = new ArrayList<>();
        for (int p = 0; p < partitions.count(); p++) {
            all.addAll(scripts.deadLetters(p, limit));
        }
        // Stable sort: within a partition the script's order (death time, then sequence) is kept.
        all.sort(Comparator.comparingLong(ScriptReplies.Dead::diedAtMs));
        return all.stream().limit(limit).map(d -> new DeadLetter(d.id(),
                d.payload() != null ? d.payload() : new byte[0], d.attempts(), d.reason(), d.headers())).toList();
    }

    /** @return how many dead letters were deleted */
    long purgeDead() {
        long total = 0;
        for (int p = 0; p < partitions.count(); p++) {
            long n;
            do {
                n = scripts.purgeDead(p);
                total += n;
            } while (n == QueueScripts.PURGE_BATCH);
        }
        return total;
    }
}
