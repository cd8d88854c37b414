package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.spi.QueueSupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The offers of an {@link InMemoryDelayedQueue}: each checks and encodes its values before any lock, registers its
 * messages under their ids without the lock ({@link ItemsById} is concurrent), with a due time from its own ticker
 * reading, and settles them through the {@link StoreGuard} (filed under the lock if it is free, else handed over), so
 * that producers do not wait for the lock. Only an offer that may replace or extend a message already there (a
 * caller's id with {@link Message.Conflict#REPLACE} or {@link Message.Conflict#EXTEND}) takes the lock, for
 * {@link QueueStore#offer(String, Object, Map, long, Message.Conflict, long)}. Thread-safe.
 *
 * @param <V> the value type
 */
final class Offers<V> {

    private final StoreGuard guard;
    private final QueueStore store;
    private final ItemsById ids;
    private final QueueSupport<V> support;
    private final Codec<V> codec;

    Offers(StoreGuard guard, QueueSupport<V> support) {
        this.guard = guard;
        this.store = guard.store();
        this.ids = store.ids();
        this.support = support;
        this.codec = support.options().codec();
    }

    /** {@link InMemoryDelayedQueue#offer(Object, Duration)}. */
    String offer(V value, Duration delay) {
        Objects.requireNonNull(value, "value");
        long delayNanos = support.delay(delay).nanos();
        Object payload = encode(value);
        guard.checkOpen();
        long now = guard.read();
        Item m = ids.register(null, payload, Map.of(), store.due(now, delayNanos));
        guard.settle(m, now);
        return m.id;
    }

    /** {@link InMemoryDelayedQueue#offer(String, Object, Duration)}. */
    boolean offer(String id, V value, Duration delay) {
        support.checkId(id);
        Objects.requireNonNull(value, "value");
        long delayNanos = support.delay(delay).nanos();
        Object payload = encode(value);
        guard.checkOpen();
        long now = guard.read();
        Item m = ids.register(id, payload, Map.of(), store.due(now, delayNanos));
        if (m == null) {
            return false;
        }
        guard.settle(m, now);
        return true;
    }

    /** {@link InMemoryDelayedQueue#offerAll(List, Duration)}. */
    List<String> offerAll(List<? extends V> values, Duration delay) {
        Objects.requireNonNull(values, "values");
        Object[] given = values.toArray();
        QueueSupport.checkBatch("values", given.length);
        long delayNanos = support.delay(delay).nanos();
        Object[] payloads = encodeAll(given, "values");
        List<String> added = new ArrayList<>(given.length);
        guard.checkOpen();
        long now = guard.read();
        long due = store.due(now, delayNanos);
        Item[] items = new Item[payloads.length];
        for (int i = 0; i < items.length; i++) {
            items[i] = ids.register(null, payloads[i], Map.of(), due);
            added.add(items[i].id);
        }
        guard.settle(items, items.length, due, now);
        return added;
    }

    /** {@link InMemoryDelayedQueue#offerAll(Map, Duration)}. */
    List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        Objects.requireNonNull(messages, "messages");
        QueueSupport.checkBatch("messages", messages.size());
        long delayNanos = support.delay(delay).nanos();
        String[] given = new String[messages.size()];
        Object[] values = new Object[messages.size()];
        int i = 0;
        for (Map.Entry<String, ? extends V> e : messages.entrySet()) {
            if (i == given.length) {
                throw new java.util.ConcurrentModificationException("messages grew while being read");
            }
            given[i] = support.checkId(e.getKey());
            values[i++] = Objects.requireNonNull(e.getValue(), () -> "messages[" + e.getKey() + "]");
        }
        Object[] payloads = encodeAll(values, "messages");
        List<String> added = new ArrayList<>(given.length);
        guard.checkOpen();
        long now = guard.read();
        long due = store.due(now, delayNanos);
        Item[] items = new Item[given.length];
        int count = 0;
        for (int j = 0; j < given.length; j++) {
            Item m = ids.register(given[j], payloads[j], Map.of(), due);
            if (m != null) {
                items[count++] = m;
                added.add(given[j]);
            }
        }
        if (count > 0) {
            guard.settle(items, count, due, now);
        }
        return added;
    }

    /** {@link InMemoryDelayedQueue#offer(Message)}. */
    Offered offer(Message<? extends V> message) {
        Objects.requireNonNull(message, "message");
        long delayNanos = support.delay(message.delay()).nanos();
        Object payload = encode(message.value());
        if (!mayConflict(message)) {
            guard.checkOpen();
            long now = guard.read();
            Item m = ids.register(message.id().orElse(null), payload, message.headers(), store.due(now, delayNanos));
            if (m == null) {
                return new Offered(message.id().orElseThrow(), Offered.Outcome.KEPT);
            }
            guard.settle(m, now);
            return new Offered(m.id, Offered.Outcome.ADDED);
        }
        guard.lockOpen(); // a replace or an extend of a message that may be there is settled under the lock
        try {
            return offerLocked(message, payload, delayNanos);
        } finally {
            guard.unlock();
        }
    }

    /** @return whether the message may change one already in the queue (a replace or extend of a caller's id) */
    private static boolean mayConflict(Message<?> message) {
        return message.id().isPresent() && message.onConflict() != Message.Conflict.KEEP;
    }

    /** {@link InMemoryDelayedQueue#offerAll(List)}. */
    List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        Objects.requireNonNull(messages, "messages");
        Object[] given = messages.toArray();
        QueueSupport.checkBatch("messages", given.length);
        Object[] payloads = new Object[given.length];
        long[] delays = new long[given.length];
        for (int i = 0; i < given.length; i++) {
            int index = i;
            Message<?> m = (Message<?>) Objects.requireNonNull(given[i], () -> "messages[" + index + "]");
            delays[i] = support.delay(m.delay()).nanos();
            @SuppressWarnings("unchecked")
            V value = (V) m.value();
            payloads[i] = encode(value);
        }
        List<Offered> result = new ArrayList<>(given.length);
        boolean conflicts = false;
        for (Object m : given) {
            conflicts |= mayConflict((Message<?>) m);
        }
        if (!conflicts) {
            guard.checkOpen();
            settleAll(given, payloads, delays, result);
            return result;
        }
        guard.lockOpen(); // a replace or an extend in the batch: the whole batch is settled under the lock
        try {
            for (int i = 0; i < given.length; i++) {
                result.add(offerLocked((Message<?>) given[i], payloads[i], delays[i]));
            }
            return result;
        } finally {
            guard.unlock();
        }
    }

    /**
     * Offers a batch of messages that cannot change one already in the queue (no id, or {@link Message.Conflict#KEEP}):
     * registers each (a taken id is kept, as under the lock) and settles those added in one step.
     */
    private void settleAll(Object[] given, Object[] payloads, long[] delays, List<Offered> result) {
        long now = guard.read();
        Item[] items = new Item[given.length];
        int count = 0;
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < given.length; i++) {
            Message<?> message = (Message<?>) given[i];
            Item m = ids.register(message.id().orElse(null), payloads[i], message.headers(), store.due(now, delays[i]));
            if (m == null) {
                result.add(new Offered(message.id().orElseThrow(), Offered.Outcome.KEPT));
            } else {
                items[count++] = m;
                earliest = Math.min(earliest, m.due);
                result.add(new Offered(m.id, Offered.Outcome.ADDED));
            }
        }
        if (count > 0) {
            guard.settle(items, count, earliest, now);
        }
    }

    /** Offers one checked and encoded message through the store; the lock is held and the queue open. */
    private Offered offerLocked(Message<?> message, Object payload, long delayNanos) {
        String id = message.id().orElse(null);
        while (true) {
            long now = guard.advance(StoreGuard.PRODUCER_ADVANCE_LIMIT);
            Offered offered = store.offer(id, payload, message.headers(), delayNanos, message.onConflict(), now);
            if (offered != null) {
                return offered;
            }
            // the message of that id was cancelled or acked without the lock meanwhile: its id is free now
        }
    }

    @SuppressWarnings("unchecked")
    private Object[] encodeAll(Object[] values, String argument) {
        Object[] payloads = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            int index = i;
            Objects.requireNonNull(values[i], () -> argument + "[" + index + "]");
            payloads[i] = encode((V) values[i]);
        }
        return payloads;
    }

    private Object encode(V value) {
        return codec == null ? value : support.encode(value);
    }
}
