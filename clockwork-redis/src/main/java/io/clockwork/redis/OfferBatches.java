package io.clockwork.redis;

import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.spi.Delay;
import io.clockwork.queue.spi.QueueSupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The offer batches of one queue, checked and encoded for {@code offer.lua}: each message's id (generated where none
 * is given, a batch's generated ids all in one partition), tail, delay and flag, and the script's codes read back as
 * outcomes. Thread-safe: it keeps no state of its own but the id generator, which is thread-safe.
 *
 * @param <V> the type of the message values
 */
final class OfferBatches<V> {

    private final QueueSupport<V> support;
    private final Partitions partitions;
    private final IdGenerator idGenerator;

    OfferBatches(QueueSupport<V> support, Partitions partitions, IdGenerator idGenerator) {
        this.support = support;
        this.partitions = partitions;
        this.idGenerator = idGenerator;
    }

    /** A batch of messages checked and encoded, with ids (generated where none was given), ready to offer. */
    record Prepared(String[] ids, byte[][] tails, Delay[] delays, byte[] flags) {
        List<Offered> offered(long[] codes) {
            List<Offered> result = new ArrayList<>(ids.length);
            for (int i = 0; i < ids.length; i++) {
                result.add(new Offered(ids[i], outcome(Math.toIntExact(codes[i]))));
            }
            return result;
        }
    }

    Prepared prepared(List<? extends Message<? extends V>> messages) {
        Objects.requireNonNull(messages, "messages");
        Object[] given = messages.toArray();
        QueueSupport.checkBatch("messages", given.length);
        String[] ids = new String[given.length];
        byte[][] tails = new byte[given.length][];
        Delay[] delays = new Delay[given.length];
        byte[] flags = new byte[given.length];
        for (int i = 0; i < given.length; i++) {
            int index = i;
            Message<?> m = (Message<?>) Objects.requireNonNull(given[i], () -> "messages[" + index + "]");
            @SuppressWarnings("unchecked")
            V value = (V) m.value();
            tails[i] = Tail.of(m.headers(), support.encode(value));
            delays[i] = support.delay(m.delay());
            ids[i] = m.id().orElse(null);
            flags[i] = ids[i] == null ? ScriptArgs.FRESH : flag(m.onConflict());
        }
        int target = partitions.selector().nextBatchTarget();
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == null) {
                ids[i] = idGenerator.nextIn(target, partitions.selector());
            }
        }
        return new Prepared(ids, tails, delays, flags);
    }

    /** offer.lua's codes, in order (see its header). */
    private static final Offered.Outcome[] OUTCOMES = {Offered.Outcome.KEPT, Offered.Outcome.ADDED,
            Offered.Outcome.REPLACED, Offered.Outcome.EXTENDED, Offered.Outcome.IN_FLIGHT, Offered.Outcome.DEAD};

    static Offered.Outcome outcome(int code) {
        return OUTCOMES[code];
    }

    static byte flag(Message.Conflict policy) {
        return switch (policy) {
            case KEEP -> ScriptArgs.KEEP;
            case REPLACE -> ScriptArgs.REPLACE;
            case EXTEND -> ScriptArgs.EXTEND;
        };
    }


    /** A batch of values under their own ids, checked and encoded, ready to offer. */
    record Keyed(String[] ids, byte[][] tails, Delay delay) {
    }

    /**
     * @param messages the values by id
     * @param delay    every message's delay
     * @return the batch
     */
    Keyed keyed(Map<String, ? extends V> messages, Duration delay) {
        Objects.requireNonNull(messages, "messages");
        QueueSupport.checkBatch("messages", messages.size());
        String[] ids = new String[messages.size()];
        Object[] given = new Object[ids.length];
        int i = 0;
        for (Map.Entry<String, ? extends V> e : messages.entrySet()) {
            if (i == ids.length) {
                throw new ConcurrentModificationException("messages grew while being read");
            }
            ids[i] = support.checkId(e.getKey());
            given[i++] = Objects.requireNonNull(e.getValue(), () -> "messages[" + e.getKey() + "]");
        }
        Delay d = support.delay(delay);
        return new Keyed(ids, encodeAll(given, "messages"), d);
    }

    /** A batch of values checked, encoded and given fresh ids, ready to offer. */
    record Generated(String[] ids, byte[][] tails, Delay delay) {
    }

    Generated generated(List<? extends V> values, Duration delay) {
        Objects.requireNonNull(values, "values");
        Object[] given = values.toArray();
        QueueSupport.checkBatch("values", given.length);
        Delay d = support.delay(delay);
        byte[][] tails = encodeAll(given, "values");
        String[] ids = new String[given.length];
        int target = partitions.selector().nextBatchTarget(); // the whole batch in one partition: one script call
        for (int i = 0; i < ids.length; i++) {
            ids[i] = idGenerator.nextIn(target, partitions.selector());
        }
        return new Generated(ids, tails, d);
    }

    /** @return each value encoded into a tail without headers ({@link Tail#of}) */
    @SuppressWarnings("unchecked")
    private byte[][] encodeAll(Object[] values, String argument) {
        byte[][] tails = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            int index = i;
            Objects.requireNonNull(values[i], () -> argument + "[" + index + "]");
            tails[i] = Tail.of(Map.of(), support.encode((V) values[i]));
        }
        return tails;
    }
}
