package io.clockwork.inprocess;

import java.lang.invoke.VarHandle;

/**
 * The polls of an {@link InMemoryDelayedQueue} asleep on its condition, as producers that do not take the lock see
 * them: how many, and a wheel time at or after which one of them is sure to wake. {@link #enter} and
 * {@link #leave} belong to the lock holder; {@link #mayOversleep} is for any thread.
 *
 * <p>The wake-up pair (Dekker style, as the engine's {@code TimerCore}): a poll publishes itself with
 * {@link #enter}, which ends in a full fence, and then looks at the inbox, sleeping only if it is empty; a producer
 * hands its message to the inbox (a CAS, itself a full fence) and then asks {@link #mayOversleep}. One of them sees
 * the other, so a message due before every sleeper wakes either is found before the sleep or makes its producer
 * take the lock and signal.
 *
 * <p>The published time is never below the earliest wake time of the polls asleep: each poll
 * going to sleep stores its own (which is at least the earliest), and each one waking stores {@link Long#MAX_VALUE},
 * so every producer wakes someone until a sleeper publishes again. A message due at or after it therefore has a
 * sleeper that wakes in time to file it.
 */
final class Sleepers {

    private volatile int count;
    private volatile long wakeFloor = Long.MAX_VALUE;

    /**
     * A poll is about to sleep until {@code wake}; it must look at the inbox after this. Lock holder only.
     *
     * @param wake when it wakes at the latest, in wheel time; {@link Long#MIN_VALUE} for a poll of a paused queue,
     *             which no message is owed to (its resume wakes every poll itself)
     */
    void enter(long wake) {
        count++; // only the lock holder writes: no update is lost
        wakeFloor = wake;
        VarHandle.fullFence(); // the store of ourselves before the look at the inbox
    }

    /** A poll woke. Lock holder only. */
    void leave() {
        count--;
        wakeFloor = Long.MAX_VALUE;
    }

    /**
     * Whether a message due at {@code due}, already in the inbox, could wait past its time for a sleeping poll; its
     * producer must then take the lock and file it. Any thread.
     *
     * @param due the message's due time, in wheel time
     * @return true if a poll sleeps and none is sure to wake by {@code due}
     */
    boolean mayOversleep(long due) {
        return count != 0 && due < wakeFloor;
    }
}
