package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Nanos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The polls of an {@link InMemoryDelayedQueue}: each takes ready messages from the {@link QueueStore} under the
 * lock (waiting on it, {@link StoreGuard#awaitReady}), reads what its deliveries need there, and decodes the values
 * and makes the receipts outside it, so that a slow codec stalls no other consumer or producer (the messages are in
 * flight meanwhile, so nobody else takes them). A value the codec rejects kills its message, with the codec's error
 * as the reason, and the poll goes on to the next. Thread-safe.
 *
 * @param <V> the value type
 */
final class Polls<V> {

    private final InMemoryDelayedQueue<V> queue;
    private final StoreGuard guard;
    private final QueueStore store;
    private final QueueSupport<V> support;
    private final Codec<V> codec;

    Polls(InMemoryDelayedQueue<V> queue, StoreGuard guard, QueueSupport<V> support) {
        this.queue = queue;
        this.guard = guard;
        this.store = guard.store();
        this.support = support;
        this.codec = support.options().codec();
    }

    /**
     * {@link InMemoryDelayedQueue#poll(Duration)}: one lock acquisition and, without a codec, one allocation (the
     * receipt).
     */
    Delivery<V> one(Duration wait) throws InterruptedException {
        Objects.requireNonNull(wait, "wait");
        long waitNanos = wait.isNegative() ? 0L : Nanos.saturated(wait);
        long start = guard.read();
        boolean firstPass = true;
        while (true) {
            Item m;
            long token;
            int attempt;
            Object payload;
            Map<String, String> headers;
            guard.lockInterruptibly();
            try {
                if (guard.isClosed()) {
                    if (firstPass) {
                        throw support.closedError();
                    }
                    return null;
                }
                m = guard.awaitReady(start, waitNanos, firstPass);
                firstPass = false;
                if (m == null) {
                    return null;
                }
                token = m.token;
                attempt = m.attempts;
                payload = m.payload;
                headers = m.headers;
            } finally {
                guard.unlock();
            }
            Receipt<V> r = receipt(m, token, payload, attempt, headers);
            if (r != null) {
                return r;
            }
        }
    }

    /** {@link InMemoryDelayedQueue#poll(int, Duration)}: the messages are taken under one lock acquisition. */
    @SuppressWarnings("unchecked")
    List<Delivery<V>> many(int maxMessages, Duration wait) throws InterruptedException {
        QueueSupport.checkMaxMessages(maxMessages);
        Objects.requireNonNull(wait, "wait");
        long waitNanos = wait.isNegative() ? 0L : Nanos.saturated(wait);
        long start = guard.read();
        boolean firstPass = true;
        while (true) {
            List<Item> taken = new ArrayList<>(Math.min(maxMessages, 64));
            long[] tokens;
            int[] attempts;
            Object[] payloads;
            Object[] headers;
            guard.lockInterruptibly();
            try {
                if (guard.isClosed()) {
                    // Closed before this call: misuse. Closed while it waited: the promised prompt empty answer.
                    if (firstPass) {
                        throw support.closedError();
                    }
                    return new ArrayList<>();
                }
                Item m = guard.awaitReady(start, waitNanos, firstPass);
                firstPass = false;
                if (m == null) {
                    return new ArrayList<>();
                }
                taken.add(m);
                long now = guard.advance();
                while (taken.size() < maxMessages && (m = store.poll(now)) != null) {
                    taken.add(m);
                }
                tokens = new long[taken.size()];
                attempts = new int[taken.size()];
                payloads = new Object[taken.size()];
                headers = new Object[taken.size()];
                for (int i = 0; i < tokens.length; i++) {
                    tokens[i] = taken.get(i).token;
                    attempts[i] = taken.get(i).attempts;
                    payloads[i] = taken.get(i).payload;
                    headers[i] = taken.get(i).headers;
                }
            } finally {
                guard.unlock();
            }
            // Decoding runs outside the lock so that a slow codec does not stall other consumers and producers; the
            // messages are in flight meanwhile, so nobody else takes them.
            List<Delivery<V>> deliveries = new ArrayList<>(taken.size());
            for (int i = 0; i < taken.size(); i++) {
                Receipt<V> r = receipt(taken.get(i), tokens[i], payloads[i], attempts[i],
                        (Map<String, String>) headers[i]);
                if (r != null) {
                    deliveries.add(r);
                }
            }
            if (!deliveries.isEmpty()) {
                return deliveries;
            }
        }
    }

    /**
     * Called without the lock, for a message a poll put in flight: its receipt, the value decoded here so that a slow
     * codec stalls nobody else; null if the codec rejected the payload (the message is then dead).
     */
    @SuppressWarnings("unchecked")
    private Receipt<V> receipt(Item m, long token, Object payload, int attempt, Map<String, String> headers) {
        if (codec == null) {
            return new Receipt<>(queue, m, token, (V) payload, attempt, headers);
        }
        try {
            return new Receipt<>(queue, m, token, support.decode((byte[]) payload), attempt, headers);
        } catch (CodecException e) {
            guard.lock();
            try {
                store.killUndecodable(m, token, e.getMessage() != null ? e.getMessage() : e.toString(), guard.read());
            } finally {
                guard.unlock();
            }
            return null;
        }
    }
}
