package io.clockwork.inprocess;

import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Ticker;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The concurrent shell of an in-process queue's {@link QueueStore}: the one lock that makes its owner, the hand-over
 * of what producers do without that lock ({@link HandOvers}), and the polls asleep on it ({@link Sleepers}).
 * Thread-safe: the methods say which need the lock held.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Producers do not wait for the lock.</b> A producer registers its message under its id
 *       ({@link ItemsById} is concurrent), and a cancel ends a message's life with one CAS on its claim word and frees
 *       its id, both without the lock. Only the filing into the store (or the unlinking) needs the lock, and that is
 *       only tried ({@link #settle}, {@link #unlinkCancelled}): if the lock is free the producer does it there,
 *       briefly; if it is held (a consumer working through an expiry storm, say) it hands the message over. Whoever
 *       holds the lock next takes in what was handed over, before anything else ({@link #advance}), so every
 *       operation under the lock (but a producer's filing of its own message) sees every offer and cancel that
 *       returned before it began; a consumer does it again after its promotion, so that what producers handed over
 *       meanwhile falls to the consumer. A producer that finds the lock free takes in at most
 *       {@value #PRODUCER_HAND_OVER_LIMIT} of them and files its own message behind the rest, so its call stays short
 *       however long a consumer held the lock (a storm's slice, or a time slice the OS took from it).</li>
 *   <li><b>Wake-ups</b>: a producer wakes a sleeping poll only if its message falls due before the earliest time a
 *       sleeper has published it will wake (a Dekker pair, see {@link Sleepers}: the producer hands its message over,
 *       then reads the sleepers; a sleeper publishes itself, then looks at the inbox), so the common offer pays no
 *       lock at all. The store asks for wake-ups through {@link QueueStore.Wakeups}, signalling the lock's
 *       condition.</li>
 *   <li><b>Time</b>: every operation first {@linkplain #advance advances} the store to the ticker's reading in a
 *       bounded slice, consumers taking larger slices than producers, and a poll that finds nothing ready while a
 *       slice is left lets the lock go between slices, so the queue needs no thread: a blocked poll
 *       ({@link #awaitReady}) sleeps until the store's next event, a new offer that falls due earlier, or a jump of
 *       the ticker ({@link Ticker#watch}).</li>
 * </ul>
 */
final class StoreGuard {

    /**
     * Messages each wheel hands over per operation at most: when a million fall due at once, each operation under
     * the lock promotes a slice of them, so no producer or consumer waits for the whole storm.
     */
    static final int ADVANCE_LIMIT = 1024;
    /**
     * The slice an offer or a cancel takes instead: a storm's promotion falls mostly on the consumers that want its
     * messages, and a producer's operation stays short (it waits at most for one consumer's slice).
     */
    static final int PRODUCER_ADVANCE_LIMIT = 64;
    /**
     * The hand-overs (offers and cancels each) a producer that finds the lock free files or unlinks at most: after a
     * consumer held the lock for a while (a storm's slice, or a time slice the OS or the host took from it), the
     * inbox holds everything producers handed over meanwhile, and the producer that gets the lock next files a slice
     * of it, not all, and leaves the rest to the consumers, which take every hand-over.
     */
    static final int PRODUCER_HAND_OVER_LIMIT = 256;

    private final QueueSupport<?> support;
    private final Ticker ticker;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a message may have become ready, the next event moved earlier, time moved, or on close. */
    private final Condition changed = lock.newCondition();
    /** Polls asleep on {@link #changed}, as producers without the lock see them. */
    private final Sleepers sleepers = new Sleepers();
    /** Guarded by the lock, but for its identity table. */
    private final QueueStore store;
    private final HandOvers handOvers;
    private final Ticker.Watch watch;
    private volatile boolean closed;
    /** Written under the lock ({@link #pause}); read by polls under it and by {@link #isPaused} without it. */
    private volatile boolean paused;

    StoreGuard(QueueSupport<?> support, Ticker ticker) {
        this.support = support;
        this.ticker = ticker;
        this.store = new QueueStore(support, ticker.read(), new Signals(changed));
        this.handOvers = new HandOvers(store);
        this.watch = ticker.watch(this::wakeAll);
    }

    /** @return the store; its methods need the lock, but for {@link QueueStore#ids()} and {@link QueueStore#due} */
    QueueStore store() {
        return store;
    }

    /** @return a reading of the queue's ticker */
    long read() {
        return ticker.read();
    }

    /** Takes the lock, or throws if the queue is closed (then without holding it). */
    void lockOpen() {
        lock.lock();
        if (closed) {
            lock.unlock();
            throw support.closedError();
        }
    }

    /** Takes the lock, whether the queue is open or not. */
    void lock() {
        lock.lock();
    }

    /** As {@link #lock()}, unless the thread is interrupted while it waits. */
    void lockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
    }

    void unlock() {
        lock.unlock();
    }

    /** @throws IllegalStateException if the queue is closed; any thread */
    void checkOpen() {
        if (closed) {
            throw support.closedError();
        }
    }

    /** @return whether the queue is closed; any thread */
    boolean isClosed() {
        return closed;
    }

    /**
     * Takes in what producers handed over without the lock (files the offers, unlinks the cancelled), then advances
     * the store to the ticker's reading, at most {@link #ADVANCE_LIMIT} entries per wheel; what is left falls to the
     * next operation. The lock is held.
     *
     * @return the reading
     */
    long advance() {
        return advance(ADVANCE_LIMIT);
    }

    /** As {@link #advance()}, at most {@code limit} entries per wheel. The lock is held. */
    long advance(int limit) {
        return advance(limit, ticker.read());
    }

    /**
     * As {@link #advance(int)}, to a reading the caller has just taken. A consumer's advance (a limit above
     * {@link #PRODUCER_ADVANCE_LIMIT}) takes the hand-overs in again after the store's: what producers handed over
     * while it promoted (a storm's slice takes a while) is filed by the consumer, so that the next producer to get
     * the lock does not find that backlog to file in its own call. The lock is held.
     */
    long advance(int limit, long now) {
        return advance(limit, now, Integer.MAX_VALUE);
    }

    /**
     * As {@link #advance(int, long)}, taking in at most {@code handOverLimit} of the offers and of the cancels handed
     * over; the rest wait. Only a producer's filing of its own messages passes fewer than all, and it then files its
     * messages behind them.
     */
    private long advance(int limit, long now, int handOverLimit) {
        handOvers.takeIn(now, handOverLimit);
        store.advance(now, limit);
        if (limit > PRODUCER_ADVANCE_LIMIT) {
            handOvers.takeIn(now, Integer.MAX_VALUE);
        }
        return now;
    }

    /**
     * Files a message this thread has just registered: under the lock if it is free (after what was handed over, so
     * filing order stays the order offers took effect), else through the hand-over. The lock is held only for the
     * filing: the id, the message and its place in the id table were made before, so a busy producer leaves the lock
     * to the consumers for longer. Any thread, without the lock.
     *
     * @param now the ticker reading the message's due time was computed from, which the store is advanced to (a
     *            reading another thread has already passed advances nothing; the wheels never go back)
     */
    void settle(Item m, long now) {
        if (!lock.tryLock()) {
            handOvers.offer(m); // a CAS: a full fence, before the read of the sleepers (see Sleepers)
            wakeIfDueBeforeSleepers(m.due);
            return;
        }
        try {
            advance(PRODUCER_ADVANCE_LIMIT, now, PRODUCER_HAND_OVER_LIMIT);
            if (!handOvers.hasTaken()) {
                store.offer(m, now);
            } else {
                handOvers.queueBehind(m); // behind the offers that took effect before it
                fileAllIfSleepersMayOversleep(m.due, now);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * As {@link #settle(Item, long)} for the first {@code count} of {@code items}, at once; {@code due}: the earliest.
     */
    void settle(Item[] items, int count, long due, long now) {
        if (!lock.tryLock()) {
            handOvers.offerAll(items, count); // a CAS, as above
            wakeIfDueBeforeSleepers(due);
            return;
        }
        try {
            advance(PRODUCER_ADVANCE_LIMIT, now, PRODUCER_HAND_OVER_LIMIT);
            for (int i = 0; i < count; i++) {
                if (!handOvers.hasTaken()) {
                    store.offer(items[i], now);
                } else {
                    handOvers.queueBehind(items[i]);
                }
            }
            if (handOvers.hasTaken()) {
                fileAllIfSleepersMayOversleep(due, now);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Files everything handed over if a sleeping poll might otherwise sleep past {@code due}: a producer that leaves
     * its message behind the hand-overs has not filed it, so filing does not signal the sleepers it concerns. The
     * lock is held.
     */
    private void fileAllIfSleepersMayOversleep(long due, long now) {
        if (sleepers.mayOversleep(due)) {
            handOvers.takeIn(now, Integer.MAX_VALUE);
        }
    }

    /**
     * The producer's half of the wake-up pair, after its message is handed over: wakes a sleeping poll if none is
     * sure to wake before the message falls due. Any thread, without the lock.
     */
    private void wakeIfDueBeforeSleepers(long due) {
        if (sleepers.mayOversleep(due)) {
            lock.lock();
            try {
                if (!closed) {
                    advance(PRODUCER_ADVANCE_LIMIT); // files it, signalling the sleepers it concerns
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Unlinks a message this thread has just cancelled (its claim ended, its id freed): under the lock if it is free,
     * else through the hand-over. Any thread, without the lock.
     */
    void unlinkCancelled(Item m) {
        if (!lock.tryLock()) {
            handOvers.cancel(m);
            return;
        }
        try {
            advance(PRODUCER_ADVANCE_LIMIT, ticker.read(), PRODUCER_HAND_OVER_LIMIT);
            store.cancel(m);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for a ready message and puts it in flight ({@link QueueStore#poll}); null if {@code waitNanos} passed or
     * the queue closed. Called holding the lock; between two slices of a storm's promotion it lets the lock go
     * (unless re-entered).
     *
     * @param start        the poll's ticker reading, taken when it was called
     * @param startIsFresh whether {@code start} may serve as the first pass's reading (the poll's first pass; a
     *                     clock read is a sizeable share of a one-message poll), rather than a new one
     */
    Item awaitReady(long start, long waitNanos, boolean startIsFresh) throws InterruptedException {
        boolean fresh = startIsFresh;
        boolean countedRateLimited = false;
        while (true) {
            // The call's own first reading serves its first pass: a message that fell due since is not owed to it.
            long now = fresh ? advance(ADVANCE_LIMIT, start) : advance();
            fresh = false;
            boolean held = paused; // a paused queue takes nothing: its polls sleep out their wait or until resume
            Item m = held ? null : store.poll(now);
            if (m != null) {
                if (store.hasReady()) {
                    changed.signal(); // pass the baton: one signal per ready message may have woken only us
                }
                return m;
            }
            if (!held && !countedRateLimited && store.heldByRate()) {
                store.countRateLimited(); // once per poll, however long it waits for the permit
                countedRateLimited = true;
            }
            if (!held && store.delayToNextEvent(now) == 0) {
                // A slice of a large promotion or cascade is done and more is left, which may hold a due message:
                // let a waiting producer in between slices, then take the next one.
                if (lock.getHoldCount() == 1) {
                    lock.unlock();
                    lock.lock();
                }
                if (closed) {
                    return null;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                continue;
            }
            long remaining = waitNanos - (now - start);
            if (remaining <= 0) {
                return null;
            }
            // On the system ticker this sleeps until the store's next event; on a ticker that jumps, its watch wakes
            // us at each jump, and a real-time timeout merely re-checks.
            // Paused: no message wakes us, only resume (Long.MIN_VALUE: producers need not signal, see Sleepers).
            // A rate limit that holds back a ready message: until its next permit frees.
            long sleep = held ? remaining
                    : Math.min(remaining, Math.min(store.delayToNextEvent(now), store.delayToPermit(now)));
            sleepers.enter(held ? Long.MIN_VALUE : store.due(now, sleep));
            try {
                if (!handOvers.hasOffers()) { // after publishing ourselves (see Sleepers)
                    changed.awaitNanos(sleep);
                }
            } finally {
                sleepers.leave();
            }
            if (closed) {
                return null;
            }
        }
    }

    /**
     * Pauses or resumes the queue's polls ({@link io.clockwork.queue.DelayedQueue#pause()}); a resume wakes every
     * sleeping poll. Idempotent.
     *
     * @param pause true to pause, false to resume
     * @throws IllegalStateException if the queue is closed
     */
    void pause(boolean pause) {
        lockOpen();
        try {
            if (paused != pause) {
                paused = pause;
                if (!pause) {
                    changed.signalAll();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return whether the queue is paused
     * @throws IllegalStateException if the queue is closed
     */
    boolean isPaused() {
        if (closed) {
            throw support.closedError();
        }
        return paused;
    }

    /** Closes the queue: sleeping polls wake and return empty, and every later operation throws. Idempotent. */
    void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        watch.close();
    }

    private void wakeAll() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** How the store wakes sleeping polls: through the lock's condition, which the store's owner holds. */
    private static final class Signals implements QueueStore.Wakeups {
        private final Condition changed;

        Signals(Condition changed) {
            this.changed = changed;
        }

        @Override
        public void one() {
            changed.signal();
        }

        @Override
        public void all() {
            changed.signalAll();
        }
    }
}
