package io.clockwork.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A read-only view of one Redis queue's messages for operators' tools (the dashboard): pages of messages by state,
 * one message by id, and the queue's head. Thread-safe, as the queue it reads through.
 *
 * <p>Every read is one script call per partition ({@code browse.lua}, {@code browse_find.lua},
 * {@code browse_head.lua}) that writes nothing, not even the sweep of expired deliveries that the queue's own
 * operations do, so a delivery whose visibility timeout ran out is shown in flight until a consumer returns it.
 * Pages are cursor-based: a cursor holds each partition's offset in score order, and a page reads at most its size
 * from each partition by rank, so a page costs O(partitions × (log n + size)) however deep it is. Messages that move
 * between two pages may be skipped or shown twice; a listing is a view, not a snapshot.
 */
public final class RedisQueueBrowser {

    /** Where a message is. Immutable and thread-safe. */
    public enum State {
        /** scheduled and due: waiting for a consumer */
        READY("ready"),
        /** scheduled, not due yet */
        DELAYED("delayed"),
        /** delivered, waiting for its ack */
        IN_FLIGHT("inflight"),
        /** dead letter */
        DEAD("dead");

        private final byte[] arg;

        State(String arg) {
            this.arg = arg.getBytes(StandardCharsets.US_ASCII);
        }
    }

    /**
     * One message as stored. Immutable and thread-safe.
     *
     * @param id       its id
     * @param state    where it is
     * @param at       its score: due time (ready, delayed), visibility deadline (in flight) or time of death (dead),
     *                 on the server's clock
     * @param attempts deliveries before its current scheduling (a message in flight is in attempt attempts + 1)
     * @param headers  its headers (empty if it has none, or its state was evicted)
     * @param payload  its payload bytes (empty if its state was evicted)
     * @param error    the last error a consumer recorded (live messages) or why it died (dead letters); empty if none
     * @param evicted  whether its state was missing (Redis evicted it): only id, state and score are known
     */
    public record Entry(String id, State state, Instant at, int attempts, Map<String, String> headers,
                        byte[] payload, String error, boolean evicted) {

        /** Copies the payload, so that an entry stays immutable. */
        public Entry {
            payload = payload.clone();
        }

        @Override
        public byte[] payload() {
            return payload.clone();
        }
    }

    /**
     * One page. Immutable and thread-safe.
     *
     * @param entries the messages, in score order
     * @param total   how many messages the queue has in the state
     * @param now     the server's clock when the page was read
     * @param next    the cursor of the next page, or empty if this is the last
     */
    public record Page(List<Entry> entries, long total, Instant now, Optional<String> next) {
    }

    /**
     * The queue's head, for sampling. Immutable and thread-safe.
     *
     * @param now         the server's clock
     * @param oldestReady how long the oldest ready message has been due, or empty if none is ready
     * @param scheduled   the sum of the partitions' sequence counters: one per offer, retry, reschedule and requeue
     *                    since the queue was created (a rate follows from two samples)
     */
    public record Head(Instant now, Optional<Duration> oldestReady, long scheduled) {
    }

    private final RedisDelayedQueue<?> queue;

    private RedisQueueBrowser(RedisDelayedQueue<?> queue) {
        this.queue = queue;
    }

    /**
     * @param queue the queue to read (it must stay open while this is used)
     * @return a browser of it
     */
    public static RedisQueueBrowser of(RedisDelayedQueue<?> queue) {
        return new RedisQueueBrowser(Objects.requireNonNull(queue, "queue"));
    }

    /**
     * Reads one page of messages in a state.
     *
     * @param state  which messages
     * @param cursor empty for the first page, else a {@link Page#next()} of the same state
     * @param size   at most this many messages, 1 to 1,000
     * @return the page
     * @throws IllegalArgumentException if the cursor is not one of this queue's, or size is out of range
     * @throws RedisQueueException      if Redis fails
     */
    public Page page(State state, Optional<String> cursor, int size) {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(cursor, "cursor");
        if (size < 1 || size > 1_000) {
            throw new IllegalArgumentException("size must be 1 to 1,000, was " + size);
        }
        int partitions = queue.routing().count();
        long[] offsets = cursor.isPresent() ? offsets(cursor.get(), partitions) : new long[partitions];
        record Found(Entry entry, int partition) {
        }
        List<Found> all = new ArrayList<>();
        long total = 0;
        long now = 0;
        for (int p = 0; p < partitions; p++) {
            List<Object> r = run("browse", Script.BROWSE, p, state.arg,
                    ascii(offsets[p]), ascii(size));
            total += (Long) r.get(0);
            now = Math.max(now, (Long) r.get(1));
            for (int i = 2; i < r.size(); i += 4) {
                all.add(new Found(entry(state, string(r.get(i)), (Long) r.get(i + 1), r.get(i + 2),
                        string(r.get(i + 3))), p));
            }
        }
        all.sort(Comparator.comparing((Found f) -> f.entry().at()).thenComparingInt(Found::partition));
        List<Entry> entries = new ArrayList<>(Math.min(size, all.size()));
        long[] next = offsets.clone();
        for (Found f : all.subList(0, Math.min(size, all.size()))) {
            entries.add(f.entry());
            next[f.partition()]++;
        }
        long seen = Arrays.stream(next).sum();
        Optional<String> more = seen < total && !entries.isEmpty() ? Optional.of(cursor(next)) : Optional.empty();
        return new Page(List.copyOf(entries), total, Instant.ofEpochMilli(now), more);
    }

    /**
     * Looks a message up by id, in its partition only: O(log n).
     *
     * @param id the id
     * @return the message, or empty if the queue has none with this id (acked, cancelled, purged or never offered)
     * @throws RedisQueueException if Redis fails
     */
    public Optional<Entry> find(String id) {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            return Optional.empty();
        }
        int p = queue.routing().of(id);
        List<Object> r = run("find", Script.BROWSE_FIND, p,
                id.getBytes(StandardCharsets.UTF_8));
        if (r.isEmpty()) {
            return Optional.empty();
        }
        String where = string(r.get(0));
        long score = (Long) r.get(1);
        long now = (Long) r.get(4);
        State state = switch (where) {
            case "pending" -> score <= now ? State.READY : State.DELAYED;
            case "inflight" -> State.IN_FLIGHT;
            default -> State.DEAD;
        };
        return Optional.of(entry(state, id, score, r.get(2), string(r.get(3))));
    }

    /**
     * Reads the queue's head: one read-only script per partition.
     *
     * @return how long the oldest ready message has waited, and the scheduling counter
     * @throws RedisQueueException if Redis fails
     */
    public Head head() {
        long now = 0;
        long oldest = Long.MAX_VALUE;
        long scheduled = 0;
        for (int p = 0; p < queue.routing().count(); p++) {
            List<Object> r = run("head", Script.BROWSE_HEAD, p);
            now = Math.max(now, (Long) r.get(0));
            long o = (Long) r.get(1);
            if (o >= 0) {
                oldest = Math.min(oldest, o);
            }
            scheduled += (Long) r.get(2);
        }
        Optional<Duration> age = oldest == Long.MAX_VALUE ? Optional.empty()
                : Optional.of(Duration.ofMillis(Math.max(0, now - oldest)));
        return new Head(Instant.ofEpochMilli(now), age, scheduled);
    }

    private static Entry entry(State state, String id, long score, Object meta, String reason) {
        Instant at = Instant.ofEpochMilli(score);
        if (!(meta instanceof byte[] v)) {
            return new Entry(id, state, at, 0, Map.of(), new byte[0], reason, true);
        }
        // "<state> <attempts> <16 hex digits><tail>", see include/meta.lua
        int sp = indexOf(v, (byte) ' ', 2);
        int attempts = Integer.parseInt(new String(v, 2, sp - 2, StandardCharsets.US_ASCII));
        int tail = sp + 1 + 16;
        String error = reason;
        if (tail < v.length && v[tail] == '!') {
            int bang = indexOf(v, (byte) '!', tail + 1);
            int n = Integer.parseInt(new String(v, tail + 1, bang - tail - 1, StandardCharsets.US_ASCII));
            error = new String(v, bang + 1, n, StandardCharsets.UTF_8);
        }
        Tail.Parsed t = Tail.parse(v, tail);
        return new Entry(id, state, at, attempts, t.headers(), Arrays.copyOfRange(v, t.payloadStart(), v.length),
                error, false);
    }

    private static int indexOf(byte[] v, byte b, int from) {
        for (int i = from; i < v.length; i++) {
            if (v[i] == b) {
                return i;
            }
        }
        throw new IllegalStateException("not a message state: " + new String(v, StandardCharsets.UTF_8));
    }

    private static long[] offsets(String cursor, int partitions) {
        String[] parts = cursor.split("\\.", -1);
        if (parts.length != partitions) {
            throw new IllegalArgumentException("cursor must hold " + partitions + " offset(s), was '" + cursor + "'");
        }
        long[] offsets = new long[partitions];
        for (int i = 0; i < partitions; i++) {
            try {
                offsets[i] = Long.parseLong(parts[i]);
            } catch (NumberFormatException e) {
                offsets[i] = -1;
            }
            if (offsets[i] < 0) {
                throw new IllegalArgumentException("cursor must hold offsets of 0 or more, was '" + cursor + "'");
            }
        }
        return offsets;
    }

    private static String cursor(long[] offsets) {
        StringBuilder b = new StringBuilder();
        for (long o : offsets) {
            b.append(b.length() == 0 ? "" : ".").append(o);
        }
        return b.toString();
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static String string(Object o) {
        return new String((byte[]) o, StandardCharsets.UTF_8);
    }

    /** Runs a browse script on partition p with the keys it takes. */
    private <T> T run(String operation, Script script, int p, byte[]... args) {
        return queue.runner().run(operation, script, queue.routing().keys(script, p), args);
    }
}
