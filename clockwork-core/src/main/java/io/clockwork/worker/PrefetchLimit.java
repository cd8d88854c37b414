package io.clockwork.worker;

/**
 * How many messages a {@link Worker} holds beyond its running handlers: fixed when the builder set a prefetch,
 * adaptive when it did not. Thread-safe: {@link #now()} is a volatile read from any thread; the events that change
 * the adaptive limit are called under the worker's lock, which orders them.
 *
 * <p>The adaptive limit {@code L} lies in [0, {@link #max()}] and starts at 0, where the worker takes a message only
 * for a free handler and a finished handler acks and takes the next in one call ({@code ackAndPoll}): the lowest
 * latency and backend cost while the queue is nearly empty. Above 0 the poller takes batches and the acker acks in
 * batches. The events:
 * <pre>
 *   turnover took a next message (a handler finished and more were due)   L = min(max, max(2L, concurrency))
 *   a poll came back short (fewer were due than it asked for)             L = L / 2
 *   a poll came back full, and while it was in flight a handler sat idle
 *     with nothing buffered (L too small to cover a poll), L above 0      L = min(max, max(2L, concurrency))
 *   a poll came back full with buffered work still waiting (handlers
 *     are the bottleneck)                                                 L = L - 1
 *   otherwise (a full poll that arrived just as the buffer ran out)       L unchanged
 * </pre>
 * Growth needs a handler that finished while more was due, so a slow handler never makes the worker hoard
 * messages that other consumers could take: a full first poll says only that messages are due, not that the
 * handlers will soon want more. Short polls halve the limit, so an idle queue brings it back to 0 within a few
 * poll waits; the decrease by one under a backlog of slow jobs leaves more of it to the queue's other consumers,
 * while the doubling on starvation restores the limit as soon as handlers outrun the polls.
 */
final class PrefetchLimit {

    private final boolean adaptive;
    private final int concurrency;
    private final int max;
    private volatile int now;

    private PrefetchLimit(boolean adaptive, int concurrency, int max, int now) {
        this.adaptive = adaptive;
        this.concurrency = concurrency;
        this.max = max;
        this.now = now;
    }

    /** A prefetch the builder set: {@code prefetch}, always. */
    static PrefetchLimit fixed(int prefetch) {
        return new PrefetchLimit(false, 0, prefetch, prefetch);
    }

    /**
     * An adaptive prefetch of a worker with {@code concurrency} handlers, starting at 0.
     *
     * @param concurrency the worker's handler count
     * @param max         the largest limit
     */
    static PrefetchLimit adaptive(int concurrency, int max) {
        return new PrefetchLimit(true, concurrency, max, 0);
    }

    /** @return true if the limit follows the load */
    boolean adaptive() {
        return adaptive;
    }

    /** @return the current limit; any thread */
    int now() {
        return now;
    }

    /** @return the largest limit */
    int max() {
        return max;
    }

    /**
     * A handler's {@code ackAndPoll} returned a next message. Under the worker's lock.
     *
     * @return true if the limit changed
     */
    boolean turnoverTookNext() {
        return adaptive && set(grown());
    }

    /**
     * A poll returned. Under the worker's lock.
     *
     * @param asked    how many it asked for
     * @param got      how many it returned
     * @param starved  whether a handler sat idle with nothing buffered while it was in flight
     * @param buffered how many buffered jobs waited for a busy handler when it returned (beyond the free ones)
     * @return true if the limit changed
     */
    boolean polled(int asked, int got, boolean starved, int buffered) {
        if (!adaptive) {
            return false;
        }
        int l = now;
        if (got < asked) {
            return set(l / 2);
        }
        if (starved && l > 0) {
            return set(grown());
        }
        if (buffered > 0 && l > 0) {
            return set(l - 1);
        }
        return false;
    }

    private int grown() {
        return Math.min(max, Math.max(2 * now, concurrency));
    }

    private boolean set(int l) {
        if (l == now) {
            return false;
        }
        now = l;
        return true;
    }

    @Override
    public String toString() {
        return adaptive ? "adaptive (now " + now + ", max " + max + ")" : Integer.toString(max);
    }
}
