package io.clockwork.postgres;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.CodecException;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A consumer's poll of a {@link PostgresDelayedQueue}: the {@code poll} unit, and between two empty takes a sleep
 * until the next due time or lease end the empty take read, a notification ({@link Listener}), the poll's deadline,
 * or at most the recheck interval; never a loop of queries. The first poll that may wait starts the queue's listener.
 * Messages the codec cannot decode are killed on the way. The poll's deadline is read on the queue's ticker; due times
 * never are (they come from the database's clock).
 *
 * <p><b>Quiet.</b> Each take also reads when the next message it left falls due and the next lease ends. Until the
 * earlier of those (and at most the recheck interval), while no notification came and this client changed nothing
 * that could make a message due, nothing can be due: a handler's {@code ackAndPoll} then only acks, and a poll that
 * may wait starts with its wait, not with a take that would find nothing. The quiet's clock is
 * {@link System#nanoTime()}, as the database's clock runs in real time. A message another client made due at once
 * reaches this one with its notification, a fraction of a millisecond after commit. Thread-safe: the quiet is one
 * volatile field set by every take, valid while the listener's generation and this client's count of changes stay
 * what they were before that take.
 *
 * @param <V> the value type
 */
final class PollLoop<V> {

    /**
     * The timing of a consumer's waits.
     *
     * @param ticker       the clock of the poll's deadline
     * @param recheckNanos the longest an idle consumer sleeps without a notification before it takes again, at most
     *                     {@link PostgresQueueBuilder#MAX_RECHECK_INTERVAL}: the units' wake-ups rely on it
     *                     ({@code QueueSql}: a message due later than that needs none)
     */
    record Timing(Ticker ticker, long recheckNanos) {
    }

    /** The longest the poll that opens the listener waits for its LISTEN before it takes anyway. */
    private static final long LISTEN_LIMIT_NANOS = 10_000_000_000L;
    /** The pause of a consumer that found due messages all held by other consumers' takes. */
    private static final long LOCKED_NANOS = 10_000_000L;

    /**
     * What a take showed: nothing falls due and no lease ends before {@code untilNanos} ({@link System#nanoTime()})
     * unless the listener's generation moved past {@code generation} or this client's count of changes past
     * {@code changes} (both read before the take, so that a change made while the take ran ends its quiet too).
     */
    private record Quiet(long generation, long changes, long untilNanos) {
    }

    /** The operations of a queue that can make nothing due sooner; every other one ends the quiet. */
    private static final Set<String> KEEPS_QUIET = Set.of("poll", "ack", "ackAll", "ackAndPoll", "extend", "stats",
            "counters", "isPaused", "deadLetters", "largestGroups", "cancel", "kill", "purgeDead", "pause");

    private volatile Quiet quiet;
    /** This client's operations that may have made a message due sooner (see {@link #changed}). */
    private final AtomicLong changes = new AtomicLong();
    private final PostgresDelayedQueue<V> queue;
    private final QueueSupport<V> support;
    private final Store store;
    private final Listener listener;
    private final long visibilityMillis;
    /** The queue's rate limit; null without one. */
    private final RateGate rate;
    private final GroupTake groups;
    private final Ticker ticker;
    private final long recheckNanos;

    PollLoop(PostgresDelayedQueue<V> queue, QueueSupport<V> support, Store store, Listener listener,
             long visibilityMillis, RateGate rate, GroupTake groups, Timing timing) {
        this.groups = groups;
        this.ticker = timing.ticker();
        this.recheckNanos = timing.recheckNanos();
        this.queue = queue;
        this.support = support;
        this.store = store;
        this.listener = listener;
        this.visibilityMillis = visibilityMillis;
        this.rate = rate;
    }

    /**
     * One take of up to {@code n}: the {@code poll} unit, or within the rate limit if the queue has one.
     *
     * @param count whether a take the limit holds back from due messages counts as a rate-limited poll
     */
    RateGate.Gated takeOnce(int n, boolean count) {
        long seen = listener.generation();
        long changed = changes.get();
        boolean grouped = groups.active();
        RateGate.Taker taker = grouped ? (c, k, visibility) -> groups.take(c, k, visibility, count && rate == null)
                : (c, k, visibility) -> new RateGate.Gated(store.poll(c, k, visibility), false);
        RateGate.Gated g = rate == null ? queue.run("poll", c -> taker.take(c, n, visibilityMillis))
                : queue.run("poll", c -> rate.poll(c, n, visibilityMillis, count, taker));
        Store.Take t = g.take();
        observe(seen, changed, t);
        if (!grouped && t.taken().isEmpty() && !t.paused() && t.nextDueMillis() != null && t.nextDueMillis() <= 0
                && queue.run("poll", groups::refresh)) {
            return takeOnce(n, count); // due messages the plain poll leaves alone: the queue's messages name groups
        }
        return g;
    }

    /**
     * Acks a delivery and takes the next due message, in one unit; only acks while the queue is quiet, and acks and
     * takes apart under a rate limit or groups.
     */
    AckAndPoll<V> ackAndPoll(PostgresDelivery<V> done) {
        if (takesApart() || quiet()) {
            boolean acked = queue.run("ack", c -> store.ack(c, done.id(), done.receipt()));
            List<Delivery<V>> next = quiet() ? List.of() : takeNow();
            return new AckAndPoll<>(acked, next.isEmpty() ? null : next.get(0));
        }
        long seen = listener.generation();
        long changed = changes.get();
        Store.AckTake r = queue.run("ackAndPoll",
                c -> store.ackAndPoll(c, done.id(), done.receipt(), visibilityMillis));
        observe(seen, changed, r.take());
        List<Delivery<V>> next = decode(r.take().taken());
        if (next.isEmpty() && !r.take().taken().isEmpty()) {
            next = takeNow(); // the one taken could not be decoded and is dead: take again
        }
        return new AckAndPoll<>(r.acked(), next.isEmpty() ? null : next.get(0));
    }

    private List<Delivery<V>> takeNow() {
        try {
            return take(1, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // a zero wait never blocks; keep the flag for the caller
            return List.of();
        }
    }

    /**
     * Records what a take that just returned showed (see {@link Quiet}): the quiet ends when a consumer that slept
     * after this take would wake ({@link #sleepFor}), so that the take after it finds the message due.
     *
     * @param seen    the listener's generation read before the take
     * @param changed this client's count of changes read before the take
     */
    private void observe(long seen, long changed, Store.Take t) {
        long quietNanos = takesApart() || t.paused() ? 0
                : Math.min(recheckNanos, Math.min(quietFor(t.nextDueMillis()), quietFor(t.nextLeaseMillis())));
        quiet = quietNanos > 0 ? new Quiet(seen, changed, System.nanoTime() + quietNanos) : null;
    }

    /** @return how long nothing happens for an event {@code millis} away (null: none), 0 if it is due */
    private long quietFor(Double millis) {
        return millis == null ? Long.MAX_VALUE : millis <= 0 ? 0 : sleepFor(millis);
    }

    /** @return whether nothing can be due now (see {@link Quiet}) */
    boolean quiet() {
        return holds(quiet);
    }

    private boolean holds(Quiet q) {
        return q != null && System.nanoTime() - q.untilNanos() < 0 && changes.get() == q.changes()
                && listener.isListening() && listener.generation() == q.generation();
    }

    /**
     * Ends the quiet, unless the operation can make nothing due sooner.
     *
     * @param operation the name of an operation of the queue this client runs
     */
    void changed(String operation) {
        if (!KEEPS_QUIET.contains(operation)) {
            changes.incrementAndGet();
        }
    }

    /** @return whether an ack and a poll go as two units (a rate limit or groups), not as {@code ackPoll} */
    boolean takesApart() {
        return rate != null || groups.active();
    }

    /** @return the lease of a delivery, in whole milliseconds */
    long visibilityMillis() {
        return visibilityMillis;
    }

    /**
     * Takes until something decodable is due or {@code wait} passes on the ticker: between two takes it sleeps until
     * the next due time or lease end read by the empty take, at most the recheck interval, or until a notification.
     */
    List<Delivery<V>> take(int n, Duration wait) throws InterruptedException {
        Objects.requireNonNull(wait, "wait");
        queue.checkOpen();
        long waitNanos = wait.isNegative() ? 0 : saturatedNanos(wait);
        long deadline = ticker.read() + waitNanos;
        if (waitNanos > 0 && listener.startOnce()) {
            // The client's first poll that may wait opens its listener, and lets it LISTEN before the first take (a
            // moment, at most the wait), so that no notification after the take is missed. Polls that race this one
            // may take before the LISTEN: its wake-up makes them take again.
            listener.awaitListening(Math.min(waitNanos, LISTEN_LIMIT_NANOS));
        }
        boolean held = false;
        while (true) {
            if (queue.isClosed()) {
                return List.of();
            }
            long seen = listener.generation();
            Quiet q = quiet;
            if (waitNanos > 0 && holds(q)) {
                // Nothing can be due yet: wait as after an empty take, until the quiet ends or a notification.
                long left = deadline - ticker.read();
                if (left <= 0) {
                    return List.of();
                }
                long now = System.nanoTime();
                listener.await(q.generation(), now + Math.min(left, q.untilNanos() - now));
                continue;
            }
            RateGate.Gated g = takeOnce(n, !held);
            held |= g.held();
            Store.Take t = g.take();
            List<Delivery<V>> out = decode(t.taken());
            if (!out.isEmpty()) {
                return out;
            }
            if (!t.taken().isEmpty()) {
                continue; // every message taken was undecodable and is dead now: take again
            }
            long left = deadline - ticker.read();
            if (left <= 0) {
                return List.of();
            }
            long sleep = Math.min(left, recheckNanos);
            if (!t.paused() && t.nextDueMillis() != null) {
                sleep = Math.min(sleep, sleepFor(t.nextDueMillis()));
            }
            if (t.nextLeaseMillis() != null) {
                sleep = Math.min(sleep, sleepFor(t.nextLeaseMillis()));
            }
            listener.await(seen, System.nanoTime() + sleep);
            if (Thread.interrupted()) {
                throw new InterruptedException("poll of queue '" + queue.name() + "' interrupted");
            }
        }
    }

    /** How long to sleep for something due in {@code millis} (past: held by another take; wait a moment). */
    private long sleepFor(double millis) {
        if (millis <= 0) {
            return Math.min(LOCKED_NANOS, recheckNanos);
        }
        return (long) Math.min(recheckNanos, millis * 1_000_000 + 200_000);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    /** Deliveries of the messages taken; those the codec cannot decode are killed instead. */
    List<Delivery<V>> decode(List<Store.Taken> taken) {
        List<Delivery<V>> out = new ArrayList<>(taken.size());
        for (Store.Taken t : taken) {
            try {
                V value = support.decode(t.payload());
                out.add(new PostgresDelivery<>(queue, t.id(), value, t.attempt(), t.seq(),
                        Headers.decode(t.headers())));
            } catch (CodecException e) {
                String reason = QueueSupport.reason(e.getMessage() != null ? e.getMessage() : e.toString());
                queue.run("kill", c -> store.kill(c, t.id(), t.seq(), reason));
            }
        }
        return out;
    }
}
