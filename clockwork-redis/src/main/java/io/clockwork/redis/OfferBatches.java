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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The offer batches of one queue, blocking and asynchronous: each batch checked and encoded for {@code offer.lua}
 * before anything is sent (each message's id, generated where none is given and then all in one partition, tail,
 * delay and flag), sent as one call per partition ({@link QueueScripts#offerAll}, {@link QueueScripts#offerMessages})
 * and its codes read back as outcomes. Thread-safe: it keeps no state of its own but the id generator, which is
 * thread-safe.
 *
 * @param <V> the type of the message values
 */
final class OfferBatches<V> {

    private final QueueSupport<V> support;
    private final Partitions partitions;
    private final QueueScripts scripts;
    private final Signals signals;
    private final IdGenerator idGenerator;
    private final Priorities priorities;
    private final Groups groups;

    OfferBatches(QueueSupport<V> support, Partitions partitions, QueueScripts scripts, Signals signals,
                 IdGenerator idGenerator, Priorities priorities, Groups groups) {
        this.support = support;
        this.partitions = partitions;
        this.scripts = scripts;
        this.signals = signals;
        this.idGenerator = idGenerator;
        this.priorities = priorities;
        this.groups = groups;
    }

    /** @see RedisDelayedQueue#offerAll(List, Duration) */
    List<String> offerAll(List<? extends V> values, Duration delay) {
        Generated b = generated(values, delay);
        scripts.offerAll(b.ids(), b.tails(), b.delay(), true, signals::push);
        return List.of(b.ids());
    }

    /** @see RedisDelayedQueue#offerAllAsync(List, Duration) */
    CompletionStage<List<String>> offerAllAsync(List<? extends V> values, Duration delay) {
        Generated b = generated(values, delay);
        return scripts.offerAllAsync(b.ids(), b.tails(), b.delay(), true, signals::push)
                .thenApply(codes -> List.of(b.ids()));
    }

    /** @see RedisDelayedQueue#offerAll(Map, Duration) */
    List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        Keyed b = keyed(messages, delay);
        long[] codes = scripts.offerAll(b.ids(), b.tails(), b.delay(), false, signals::push);
        List<String> result = new ArrayList<>(b.ids().length);
        for (int j = 0; j < codes.length; j++) {
            if (codes[j] == 1L) {
                result.add(b.ids()[j]);
            }
        }
        return result;
    }

    /** @see RedisDelayedQueue#offerAll(List) */
    List<Offered> offerMessages(List<? extends Message<? extends V>> messages) {
        Prepared b = prepared(messages);
        if (b.ids().length == 0) {
            return List.of();
        }
        return b.offered(scripts.offerMessages(b.ids(), b.tails(), b.delays(), b.flags(), signals::push));
    }

    /** @see RedisDelayedQueue#offerAllAsync(List) */
    CompletionStage<List<Offered>> offerMessagesAsync(List<? extends Message<? extends V>> messages) {
        Prepared b = prepared(messages);
        if (b.ids().length == 0) {
            return CompletableFuture.completedFuture(List.of());
        }
        return scripts.offerMessagesAsync(b.ids(), b.tails(), b.delays(), b.flags(), signals::push)
                .thenApply(b::offered);
    }

    /** A batch of messages checked and encoded, with ids (generated where none was given), ready to offer. */
    private record Prepared(String[] ids, byte[][] tails, Delay[] delays, byte[] flags) {
        List<Offered> offered(long[] codes) {
            List<Offered> result = new ArrayList<>(ids.length);
            for (int i = 0; i < ids.length; i++) {
                result.add(new Offered(ids[i], outcome(Math.toIntExact(codes[i]))));
            }
            return result;
        }
    }

    private Prepared prepared(List<? extends Message<? extends V>> messages) {
        Objects.requireNonNull(messages, "messages");
        Object[] given = messages.toArray();
        QueueSupport.checkBatch("messages", given.length);
        String[] ids = new String[given.length];
        byte[][] tails = new byte[given.length][];
        Delay[] delays = new Delay[given.length];
        byte[] flags = new byte[given.length];
        boolean prioritized = false;
        for (int i = 0; i < given.length; i++) {
            int index = i;
            Message<?> m = (Message<?>) Objects.requireNonNull(given[i], () -> "messages[" + index + "]");
            @SuppressWarnings("unchecked")
            V value = (V) m.value();
            prioritized |= Priorities.prioritized(m.headers());
            tails[i] = Tail.of(m.headers(), support.encode(value));
            delays[i] = support.delay(m.delay());
            ids[i] = m.id().orElse(null);
            flags[i] = ids[i] == null ? ScriptArgs.FRESH : flag(m.onConflict());
            if (Groups.groupOf(m.headers()) != null) {
                ids[i] = groups.idFor(ids[i], m.headers(), idGenerator); // in its group's partition
            }
        }
        int target = partitions.selector().nextBatchTarget();
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == null) {
                ids[i] = idGenerator.nextIn(target, partitions.selector());
            }
        }
        if (prioritized) {
            priorities.all(); // once per client: a batch spreads over partitions
        }
        for (int i = 0; i < ids.length; i++) {
            groups.before(partitions.of(ids[i]), ((Message<?>) given[i]).headers());
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
    private record Keyed(String[] ids, byte[][] tails, Delay delay) {
    }

    /**
     * @param messages the values by id
     * @param delay    every message's delay
     * @return the batch
     */
    private Keyed keyed(Map<String, ? extends V> messages, Duration delay) {
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
    private record Generated(String[] ids, byte[][] tails, Delay delay) {
    }

    private Generated generated(List<? extends V> values, Duration delay) {
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
