package io.clockwork.redis;

import io.clockwork.time.Ticker;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A queue's wake-up signals, both ways: pushing a token when a script could not (its partition's slot is not the
 * signal's, in a Cluster), and waiting for one ({@link SignalWaiter}). Thread-safe.
 *
 * <p>Pushes are coalesced per client: while one {@code signal.lua} call is in flight, further requests send one more
 * call once it completes, not one each. Every request is thus followed by a token pushed after the request was made
 * (a poller that takes the in-flight call's token polls again after the state that caused the request, or gets the
 * next token), so no wake-up is lost; a call in flight longer than {@link #STALE_NANOS} no longer holds back new
 * ones. When the signal's server cannot be reached, waiters sleep on the client instead for
 * {@link Partitions#PROBE_INTERVAL_MS} at a time, and the next poll pass fails or retries as configured.
 */
final class Signals implements AutoCloseable {

    /** The queue's logger, so that one logging rule covers every part of it. */
    private static final System.Logger LOG = System.getLogger(RedisDelayedQueue.class.getName());
    private static final int IDLE = 0;
    private static final int IN_FLIGHT = 1;
    private static final int AGAIN = 2;
    /** After this long in flight, a signal call no longer holds back new ones (its reply may be stuck). */
    private static final long STALE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String queueName;
    private final ScriptRunner scripts;
    private final byte[][] signalKey;
    private final Ticker ticker;
    private final SignalWaiter waiter;
    private final AtomicInteger state = new AtomicInteger();
    private volatile long sentAt;
    private final LongAdder sent = new LongAdder();
    private final LongAdder coalesced = new LongAdder();
    /** The ticker reading before which pollers sleep on the client instead of waiting for the signal. */
    private volatile long waiterDownUntil;
    private volatile boolean closed;

    Signals(String queueName, Connections connections, ScriptRunner scripts, byte[] signalKey, Ticker ticker) {
        this.queueName = queueName;
        this.scripts = scripts;
        this.signalKey = new byte[][] {signalKey};
        this.ticker = ticker;
        this.waiter = new SignalWaiter(connections, signalKey, this::push);
        this.waiterDownUntil = ticker.read();
    }

    /** Wakes one blocked poller of any client of the queue (see the class comment). */
    void push() {
        while (!closed) {
            int s = state.get();
            if (s == IDLE || ticker.read() - sentAt > STALE_NANOS) {
                if (state.compareAndSet(s, IN_FLIGHT)) {
                    send();
                    return;
                }
            } else if (s == IN_FLIGHT) {
                if (state.compareAndSet(IN_FLIGHT, AGAIN)) {
                    coalesced.increment();
                    return;
                }
            } else {
                coalesced.increment();
                return; // AGAIN: a call after the in-flight one is already promised
            }
        }
    }

    private void send() {
        sentAt = ticker.read();
        sent.increment();
        CompletionStage<Object> call;
        try {
            call = scripts.fireAndForget(Script.SIGNAL, signalKey);
        } catch (RuntimeException e) {
            state.set(IDLE);
            LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + queueName + "': signal failed: " + e);
            return;
        }
        call.whenComplete((r, e) -> {
            if (!state.compareAndSet(IN_FLIGHT, IDLE) && !closed) {
                state.set(IN_FLIGHT); // AGAIN: requested while this one was in flight
                send();
            }
        });
    }

    /**
     * Waits for a wake-up signal, or on the client while the signal's server is unreachable.
     *
     * @param waitMs the longest wait, at least 1
     * @return true if a signal arrived
     * @throws InterruptedException if interrupted
     */
    boolean await(long waitMs) throws InterruptedException {
        if (waiterDownUntil - ticker.read() > 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(waitMs, Partitions.PROBE_INTERVAL_MS)));
            return false;
        }
        try {
            return waiter.await(waitMs);
        } catch (RuntimeException e) {
            if (closed) {
                return false;
            }
            // The signal's server is unreachable (restarting, or its Cluster master is down): wait on the client
            // instead for a while; the next pass over the partitions fails or retries as configured.
            waiterDownUntil = ticker.read() + Partitions.PROBE_INTERVAL_NANOS;
            LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + queueName + "': cannot wait for the wake-up signal ("
                    + e + "); re-checking every " + Partitions.PROBE_INTERVAL_MS + " ms meanwhile");
            return false;
        }
    }

    /** @return signals sent with {@code signal.lua}, and requests folded into those */
    long[] counts() {
        return new long[] {sent.sum(), coalesced.sum()};
    }

    /** @return how many dedicated blocking connections are open */
    int openConnections() {
        return waiter.openConnections();
    }

    @Override
    public void close() {
        closed = true;
        waiter.close();
    }
}
