package io.clockwork.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Group commit: concurrent one-item calls are stored together, in one statement and one transaction, each caller
 * getting its own result. Thread-safe.
 *
 * <p>A caller adds its request to a queue, then, while at most {@code statements} batches run, becomes a leader: it
 * takes what waits (at most {@code max}, its own among them unless another leader has it already) and runs it as one
 * batch on its own thread. Callers that find every slot taken park until a leader hands them their result, or until
 * a slot frees (a leader that gives its slot back wakes the owner of the request at the head of the queue, which
 * then leads the next batch); a caller whose request is in another leader's batch has nothing to lead and parks
 * until it is done. A caller alone finds a free slot and runs at once: there is no linger delay, and batches grow only
 * while {@code statements} batches are already running, i.e. exactly when callers would otherwise wait for a
 * connection or for the database anyway.
 *
 * <p>A batch that fails fails each of its requests with the same exception; nothing of a failed batch is stored, as
 * it is one transaction. A caller's interrupt is kept for it (its request runs to its end: a store cannot be called
 * back once its statement is sent).
 *
 * @param <T> an item
 * @param <R> its result
 */
final class GroupCommit<T, R> {

    /** How long a parked caller sleeps before it looks again, should a wake-up cross its park. */
    private static final long RECHECK_NANOS = 1_000_000;

    private final ConcurrentLinkedQueue<Request<T, R>> waiting = new ConcurrentLinkedQueue<>();
    private final Semaphore slots;
    private final int max;
    private final Function<List<T>, List<R>> store;

    /**
     * @param statements most batches running at once, at least 1
     * @param max        most items in one batch, at least 1
     * @param store      stores a batch in one transaction and returns a result per item, in order; throws to fail
     *                   the batch
     */
    GroupCommit(int statements, int max, Function<List<T>, List<R>> store) {
        if (statements < 1 || max < 1) {
            throw new IllegalArgumentException("statements and max must be at least 1: " + statements + ", " + max);
        }
        this.slots = new Semaphore(statements);
        this.max = max;
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Stores an item, alone or in a batch with concurrent callers' items.
     *
     * @param item the item
     * @return its result
     * @throws RuntimeException what the store threw for the item's batch
     */
    R submit(T item) {
        Request<T, R> request = new Request<>(item, Thread.currentThread());
        waiting.add(request);
        boolean interrupted = false;
        try {
            while (!request.done) {
                // A caller whose request another leader runs has nothing to lead: it parks until handed its result.
                if (!waiting.isEmpty() && slots.tryAcquire()) {
                    try {
                        lead();
                    } finally {
                        slots.release();
                    }
                    Request<T, R> head = waiting.peek();
                    if (head != null) {
                        LockSupport.unpark(head.owner);
                    }
                } else {
                    LockSupport.parkNanos(this, RECHECK_NANOS);
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (request.error != null) {
            throw request.error;
        }
        return request.result;
    }

    /** @return how many requests wait for a leader (for tests) */
    int waiting() {
        return waiting.size();
    }

    /** Runs one batch of what waits, on the caller's thread. */
    private void lead() {
        List<Request<T, R>> batch = new ArrayList<>();
        Request<T, R> next;
        while (batch.size() < max && (next = waiting.poll()) != null) {
            batch.add(next);
        }
        if (batch.isEmpty()) {
            return;
        }
        List<T> items = new ArrayList<>(batch.size());
        for (Request<T, R> r : batch) {
            items.add(r.item);
        }
        try {
            List<R> results = store.apply(items);
            if (results.size() != items.size()) {
                throw new IllegalStateException("a batch of " + items.size() + " gave " + results.size()
                        + " results");
            }
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result = results.get(i);
            }
        } catch (RuntimeException e) {
            for (Request<T, R> r : batch) {
                r.error = e;
            }
        }
        Thread self = Thread.currentThread();
        for (Request<T, R> r : batch) {
            r.done = true;
            if (r.owner != self) {
                LockSupport.unpark(r.owner);
            }
        }
    }

    /** One caller's item and, once {@link #done}, its result or error (written before {@code done}). */
    private static final class Request<T, R> {
        final T item;
        final Thread owner;
        R result;
        RuntimeException error;
        volatile boolean done;

        Request(T item, Thread owner) {
            this.item = item;
            this.owner = owner;
        }
    }
}
