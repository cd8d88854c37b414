package io.clockwork.redis;

import io.lettuce.core.KeyValue;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Lets idle pollers sleep until a wake-up signal, a deadline or {@link #close()}, whichever comes first.
 * Thread-safe.
 *
 * <h2>Design</h2>
 * A waiting poller sends {@code BLPOP signal} on a dedicated connection from a small pool (blocking commands need
 * their own connections: Lettuce pipelines everything else on one shared connection). Scripts that make a message
 * due earlier than the partition's previous head push one token onto the signal list and trim it to one element,
 * so a token left while nobody waited makes the next waiter return at once and re-check: a wake-up cannot be lost
 * between a poller's empty poll and its {@code BLPOP}.
 *
 * <p>The deadline is kept by the client ({@code Future.get} with a timeout), not by the server: Redis checks
 * blocking timeouts only every {@code 1000/hz} ms (100 ms by default), far coarser than the few milliseconds a due
 * message may wait. A {@code BLPOP} abandoned at the client-side deadline keeps its connection busy until the server
 * times it out too; then the connection goes back to the pool, and if it took a token meanwhile the token is pushed
 * again, so that it wakes someone else.
 */
final class SignalWaiter implements AutoCloseable {

    private final Connections connections;
    private final byte[] signalKey;
    private final Runnable resignal;
    private final ConcurrentLinkedDeque<Connections.Blocker> idle = new ConcurrentLinkedDeque<>();
    private final Set<Connections.Blocker> all = ConcurrentHashMap.newKeySet();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    /**
     * @param connections where to open blocking connections
     * @param signalKey   the list to wait on
     * @param resignal    pushes a token again (asynchronously)
     */
    SignalWaiter(Connections connections, byte[] signalKey, Runnable resignal) {
        this.connections = connections;
        this.signalKey = signalKey;
        this.resignal = resignal;
    }

    /**
     * Waits for a signal.
     *
     * @param waitMillis the longest wait, at least 1
     * @return true if signalled; false after the deadline or on close
     * @throws InterruptedException if interrupted
     * @throws RuntimeException     Lettuce's error if the connection failed
     */
    boolean await(long waitMillis) throws InterruptedException {
        if (closed.isDone()) {
            return false;
        }
        Connections.Blocker blocker = borrow();
        // The server's timeout only frees the connection; the client's deadline below is the one that counts.
        CompletableFuture<KeyValue<byte[], byte[]>> pop =
                blocker.commands().blpop(waitMillis / 1000.0, signalKey).toCompletableFuture();
        boolean settled = false;
        try {
            CompletableFuture.anyOf(pop, closed).get(waitMillis, TimeUnit.MILLISECONDS);
            if (pop.isDone()) {
                settled = true;
                KeyValue<byte[], byte[]> kv = pop.join();
                giveBack(blocker);
                return kv != null && kv.hasValue();
            }
            return false;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            settled = true;
            discard(blocker);
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
        } finally {
            if (!settled) {
                pop.whenComplete((kv, error) -> {
                    if (kv != null && kv.hasValue() && !closed.isDone()) {
                        resignal.run();
                    }
                    if (error != null) {
                        discard(blocker);
                    } else {
                        giveBack(blocker);
                    }
                });
            }
        }
    }

    /** @return how many dedicated connections are open */
    int openConnections() {
        return all.size();
    }

    /** Wakes every waiter (they return false) and closes every dedicated connection. Idempotent. */
    @Override
    public void close() {
        closed.complete(null);
        for (Connections.Blocker b : all) {
            if (all.remove(b)) {
                idle.remove(b);
                b.connection().close();
            }
        }
    }

    private Connections.Blocker borrow() {
        Connections.Blocker b = idle.pollFirst();
        if (b != null) {
            return b;
        }
        b = connections.openBlocker();
        all.add(b);
        if (closed.isDone()) {
            discard(b);
        }
        return b;
    }

    private void giveBack(Connections.Blocker b) {
        if (closed.isDone() || !b.connection().isOpen()) {
            discard(b);
        } else {
            idle.addFirst(b);
            if (closed.isDone() && idle.remove(b)) {
                discard(b);
            }
        }
    }

    private void discard(Connections.Blocker b) {
        if (all.remove(b)) {
            idle.remove(b);
            b.connection().closeAsync();
        }
    }
}
