package io.clockwork.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Group commit for one partition's script: concurrent calls are coalesced into one script call, each caller still
 * getting its own reply. Thread-safe.
 *
 * <p>A call is a request (a {@link CompletableFuture} its caller waits on) added to a lock-free queue. Whoever finds
 * fewer than {@code maxInFlight} batches in flight becomes a leader: it takes what has accumulated (at most
 * {@code max}) and sends it as one asynchronous script call on the shared connection, without waiting. When a reply
 * arrives (on the connection's I/O thread) the next batch, made of the calls that arrived meanwhile, is sent at once,
 * then every request of the answered batch is completed. A caller finding a free slot sends its call at once: there is no
 * linger delay, and batches grow only while {@code maxInFlight} calls are already in flight, i.e. exactly when
 * callers would otherwise queue behind each other anyway. More than one batch in flight lets a few callers pipeline
 * their calls on the connection (each waits one round trip, not one plus the remainder of another's); one only
 * would make every caller behind the first wait for it.
 *
 * <p>A request cancelled before it was sent (its caller timed out) is dropped, so it never runs late. A failed batch
 * fails each of its requests with the same error; callers retry alone (see
 * {@link ScriptRunner#runAfter}).
 *
 * @param <Q> the request type
 */
final class Batcher<Q extends CompletableFuture<?>> {

    private final ConcurrentLinkedQueue<Q> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final int max;
    private final int maxInFlight;
    private final Function<List<Q>, CompletionStage<?>> send;

    /**
     * @param max         most requests per script call
     * @param maxInFlight most script calls in flight at once, at least 1
     * @param send        sends a batch and returns a stage that completes once the reply was handed out; it must
     *                    complete every request of the batch (requests left incomplete fail with the stage's error)
     */
    Batcher(int max, int maxInFlight, Function<List<Q>, CompletionStage<?>> send) {
        this.max = max;
        this.maxInFlight = maxInFlight;
        this.send = send;
    }

    /**
     * Adds a request and sends it now, alone or with those waiting, unless a batch is in flight (then it goes with the
     * next one, sent as soon as that reply arrives).
     *
     * @param request the request; its caller waits on it
     */
    void submit(Q request) {
        queue.add(request);
        drain();
    }

    private void drain() {
        while (!queue.isEmpty() && acquire()) {
            List<Q> batch = new ArrayList<>(Math.min(max, 16));
            Q q;
            while (batch.size() < max && (q = queue.poll()) != null) {
                if (!q.isDone()) {
                    batch.add(q);
                }
            }
            if (batch.isEmpty()) {
                inFlight.decrementAndGet();
                continue;
            }
            CompletableFuture<?> sent;
            try {
                sent = send.apply(batch).toCompletableFuture();
            } catch (RuntimeException e) {
                settle(batch, e);
                inFlight.decrementAndGet();
                continue;
            }
            if (sent.isDone()) { // e.g. rejected at once while disconnected: no recursion, go on here
                settle(batch, error(sent));
                inFlight.decrementAndGet();
                continue;
            }
            sent.whenComplete((r, e) -> {
                inFlight.decrementAndGet();
                try {
                    drain(); // the next batch leaves before this one's callers are woken, so they do not delay it
                } finally {
                    settle(batch, e);
                }
            });
            return;
        }
    }

    /** Takes a slot for one more batch in flight; false if all {@code maxInFlight} are taken. */
    private boolean acquire() {
        while (true) {
            int n = inFlight.get();
            if (n >= maxInFlight) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    private static Throwable error(CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static <Q extends CompletableFuture<?>> void settle(List<Q> batch, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        for (Q q : batch) {
            if (!q.isDone()) {
                q.completeExceptionally(cause != null ? cause
                        : new IllegalStateException("batched script call completed without a reply for this call"));
            }
        }
    }
}
