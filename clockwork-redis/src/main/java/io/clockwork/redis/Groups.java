package io.clockwork.redis;

import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.Message;
import io.clockwork.queue.QueueOptions;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The message groups of one queue on Redis ({@code include/groups.lua}): where a group's messages live, the marks that
 * make a partition deliver round robin between groups, and the group options stored with the queue. Thread-safe: two
 * threads may both mark a partition, which is harmless.
 *
 * <p><b>Placement.</b> Every message of a group lives in the group's partition, FNV-1a of the group key's UTF-8 bytes
 * modulo the partition count (as {@link PartitionSelector} maps ids), so that a group's in-flight count, rate log and
 * turn are kept by one script in one slot. A generated id is drawn in that partition ({@link IdGenerator#nextIn}), so
 * cancel, reschedule, deduplication and acks find the message by its id as usual. An id of the caller's choosing
 * must map to its group's partition on a queue of more than one partition; an offer of one that does not is refused
 * before anything is sent. On one partition every id fits.
 *
 * <p><b>Marks.</b> A partition delivers by group once marked grouped ({@code group.lua}); this client marks a partition
 * before its first offer of a message with a group to it and remembers the partitions it marked (a mark is never
 * removed), so an offer pays the extra call once per partition per client, as {@link Priorities} does.
 *
 * <p><b>Options.</b> A client built with {@code maxInFlightPerGroup}, {@code groupRateLimit} or {@code groupWeight}
 * stores them in every partition ({@code gconf}) when it is built, replacing what another client stored: the last
 * client built with group options sets them for every client, whose scripts read them on every grouped call.
 */
final class Groups {

    private final QueueScripts scripts;
    private final PartitionSelector selector;
    private final AtomicIntegerArray marked;

    Groups(QueueScripts scripts, PartitionSelector selector, int partitions) {
        this.scripts = scripts;
        this.selector = selector;
        this.marked = new AtomicIntegerArray(partitions);
    }

    /** @return a message's group (its header {@value Message#GROUP_HEADER}), or null */
    static String groupOf(Map<String, String> headers) {
        return headers.get(Message.GROUP_HEADER);
    }

    /** @return the partition of a group key: FNV-1a of its UTF-8 bytes modulo the partition count */
    int partitionOf(String group) {
        if (marked.length() == 1) {
            return 0;
        }
        int hash = PartitionSelector.FNV_OFFSET;
        for (byte b : group.getBytes(StandardCharsets.UTF_8)) {
            hash = PartitionSelector.mix(hash, b & 0xff);
        }
        return selector.partitionOfHash(hash);
    }

    /**
     * The id of a message: its own, checked against its group's partition, or a new one there.
     *
     * @param given     the caller's id, or null
     * @param headers   the message's headers
     * @param generator draws ids
     * @return the id to offer the message under
     * @throws IllegalArgumentException if the caller's id maps to another partition than the message's group
     */
    String idFor(String given, Map<String, String> headers, IdGenerator generator) {
        String group = groupOf(headers);
        if (group == null || marked.length() == 1) {
            return given != null ? given : generator.next();
        }
        int p = partitionOf(group);
        if (given == null) {
            return generator.nextIn(p, selector);
        }
        int idPartition = selector.partitionOf(given);
        if (idPartition != p) {
            throw new IllegalArgumentException("message id '" + given + "' maps to partition " + idPartition + " of "
                    + marked.length() + " but its group '" + group + "' to partition " + p + ": on a queue of more"
                    + " than one partition a message with a group and an id of the caller's choosing must map to the"
                    + " group's partition; offer it without an id to have one generated there");
        }
        return given;
    }

    /**
     * Marks the partition of a schedule whose occurrences carry a group before the schedule is stored.
     *
     * @param name      the schedule's name
     * @param partition the partition its occurrences go to (its name's)
     * @param headers   the occurrences' headers
     * @throws IllegalArgumentException if they name a group of another partition
     */
    void beforeSchedule(String name, int partition, Map<String, String> headers) {
        String group = groupOf(headers);
        if (group != null && partitionOf(group) != partition) {
            throw new IllegalArgumentException("schedule '" + name + "' maps to partition " + partition + " of "
                    + marked.length() + " but its group '" + group + "' to partition " + partitionOf(group)
                    + ": on a queue of more than one partition a schedule's occurrences with a group must map to the"
                    + " group's partition; choose a schedule name that does, or a queue of one partition");
        }
        before(partition, headers);
    }

    /** Marks partition p grouped, unless this client did already, before an offer of a message with headers. */
    void before(int p, Map<String, String> headers) {
        if (groupOf(headers) != null && marked.get(p) == 0) {
            scripts.group(p, null);
            marked.set(p, 1);
        }
    }

    /** {@link #before} without waiting: completes when the partition is marked (at once if it needs no mark). */
    CompletionStage<Void> beforeAsync(int p, Map<String, String> headers) {
        if (groupOf(headers) == null || marked.get(p) != 0) {
            return CompletableFuture.completedFuture(null);
        }
        return scripts.groupAsync(p).thenRun(() -> marked.set(p, 1));
    }

    /**
     * Stores a client's group options in every partition, marking each grouped, if it was built with any.
     *
     * @throws RuntimeException Lettuce's error if Redis fails
     */
    void store(QueueOptions<?> options) {
        List<byte[]> fields = new ArrayList<>();
        options.maxInFlightPerGroup().ifPresent(n -> add(fields, "max", Integer.toString(n)));
        options.groupRateLimit().ifPresent(r -> add(fields, "rate", StoredRateLimit.format(r)));
        if (!options.groupWeights().isEmpty()) {
            add(fields, "weighted", "1");
            options.groupWeights().forEach((g, w) -> add(fields, "w:" + g, Integer.toString(w)));
        }
        if (fields.isEmpty()) {
            return;
        }
        byte[][] args = fields.toArray(new byte[0][]);
        for (int p = 0; p < marked.length(); p++) {
            scripts.group(p, args);
            marked.set(p, 1);
        }
    }

    /**
     * Reads every partition's groups ({@code group_list.lua}) and merges them.
     *
     * @param limit the most groups to return
     * @return the groups with the most ready messages, then the most in flight, largest first
     */
    List<GroupBacklog> largest(int limit) {
        Map<String, long[]> counts = new HashMap<>();
        for (int p = 0; p < marked.length(); p++) {
            List<Object> r = scripts.groupList(p);
            for (int i = 0; i + 2 < r.size(); i += 3) {
                long[] c = counts.computeIfAbsent(new String((byte[]) r.get(i), StandardCharsets.UTF_8),
                        g -> new long[2]);
                c[0] += (Long) r.get(i + 1);
                c[1] += (Long) r.get(i + 2);
            }
        }
        return counts.entrySet().stream()
                .map(e -> new GroupBacklog(e.getKey(), e.getValue()[0], Math.max(0, e.getValue()[1])))
                .filter(b -> b.ready() > 0 || b.inFlight() > 0)
                .sorted(Comparator.comparingLong(GroupBacklog::ready).thenComparingLong(GroupBacklog::inFlight)
                        .reversed())
                .limit(limit)
                .toList();
    }

    private static void add(List<byte[]> fields, String field, String value) {
        fields.add(field.getBytes(StandardCharsets.UTF_8));
        fields.add(value.getBytes(StandardCharsets.UTF_8));
    }
}
