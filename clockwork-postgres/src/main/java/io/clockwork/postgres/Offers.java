package io.clockwork.postgres;

import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.spi.QueueSupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The offers of a {@link PostgresDelayedQueue}: messages checked and encoded before any statement runs (so a bad
 * element stores nothing), then stored by the {@code offer} unit, by {@code offerReplace} for a caller's id under
 * REPLACE or EXTEND, or as a batch in one {@code offerBatch} statement when every element keeps an id that is
 * taken. Works on whatever connection it is given: the queue's, or a caller's inside its transaction. Thread-safe
 * (stateless).
 *
 * @param <V> the value type
 */
final class Offers<V> {

    private final QueueSupport<V> support;
    private final Store store;
    private final Ids ids;
    private final GroupTake groups;

    Offers(QueueSupport<V> support, Store store, Ids ids, GroupTake groups) {
        this.support = support;
        this.store = store;
        this.ids = ids;
        this.groups = groups;
    }

    /** A message checked and encoded, ready for a unit. */
    record Encoded(String id, boolean ownId, byte[] payload, byte[] headers, long delayMillis,
                   int priority, String group, Message.Conflict conflict) {
    }

    Encoded encode(Message<? extends V> m) {
        Map<String, String> headers = m.headers();
        byte[] payload = support.encode(m.value());
        long delay = support.delay(m.delay()).millis();
        return new Encoded(m.id().orElseGet(ids::next), m.id().isPresent(), payload, Headers.encode(headers), delay,
                m.priority(), headers.get(Message.GROUP_HEADER), m.onConflict());
    }

    /** @return a value checked and encoded, under {@code id} (the caller's if {@code ownId}), to keep a taken id */
    Encoded encode(String id, boolean ownId, V value, long delayMillis) {
        return new Encoded(id, ownId, support.encode(value), null, delayMillis, 0, null, Message.Conflict.KEEP);
    }

    /** @return the values of an {@code offerAll(values, delay)}, each under a new id, checked and encoded */
    List<Encoded> encodeValues(List<? extends V> values, long delayMillis) {
        QueueSupport.checkBatch("values", values.size());
        List<Encoded> batch = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            int index = i;
            V v = Objects.requireNonNull(values.get(i), () -> "values[" + index + "]");
            batch.add(encode(ids.next(), false, v, delayMillis));
        }
        return batch;
    }

    List<Encoded> encodeAll(List<? extends Message<? extends V>> messages) {
        Objects.requireNonNull(messages, "messages");
        QueueSupport.checkBatch("messages", messages.size());
        List<Encoded> encoded = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            int index = i;
            encoded.add(encode(Objects.requireNonNull(messages.get(i), () -> "messages[" + index + "]")));
        }
        return encoded;
    }

    Offered offerOn(Connection c, Encoded e) throws SQLException {
        if (e.group() != null) {
            groups.markGrouped(c);
        }
        if (!e.ownId() || e.conflict() == Message.Conflict.KEEP) {
            boolean added = store.offer(c, e.id(), e.payload(), e.headers(), e.delayMillis(), e.priority(),
                    e.group());
            return new Offered(e.id(), added ? Offered.Outcome.ADDED : Offered.Outcome.KEPT);
        }
        return new Offered(e.id(), store.offer(c, e.id(), e.payload(), e.headers(), e.delayMillis(), e.priority(),
                e.group(), e.conflict() == Message.Conflict.REPLACE));
    }

    /** Offers a checked batch: in one statement if every element keeps a known id, else one by one. */
    List<Offered> offerAllOn(Connection c, List<Encoded> batch) throws SQLException {
        if (batch.isEmpty()) {
            return List.of();
        }
        boolean allKeep = batch.stream().allMatch(e -> !e.ownId() || e.conflict() == Message.Conflict.KEEP);
        if (!allKeep) {
            List<Offered> out = new ArrayList<>(batch.size());
            for (Encoded e : batch) {
                out.add(offerOn(c, e));
            }
            return out;
        }
        List<String> idList = new ArrayList<>(batch.size());
        List<byte[]> payloads = new ArrayList<>(batch.size());
        List<byte[]> headers = new ArrayList<>(batch.size());
        List<Long> delays = new ArrayList<>(batch.size());
        List<Short> priorities = new ArrayList<>(batch.size());
        List<String> groupKeys = new ArrayList<>(batch.size());
        for (Encoded e : batch) {
            groupKeys.add(e.group());
            idList.add(e.id());
            payloads.add(e.payload());
            headers.add(e.headers());
            delays.add(e.delayMillis());
            priorities.add((short) e.priority());
        }
        if (groupKeys.stream().anyMatch(Objects::nonNull)) {
            groups.markGrouped(c);
        }
        Set<String> added = new HashSet<>(store.offerAll(c, idList, payloads, headers, delays, priorities,
                groupKeys));
        List<Offered> out = new ArrayList<>(batch.size());
        for (Encoded e : batch) {
            // Only the first element of an id can have been inserted: the statement inserts in list order.
            out.add(new Offered(e.id(), added.remove(e.id()) ? Offered.Outcome.ADDED : Offered.Outcome.KEPT));
        }
        return out;
    }
}
