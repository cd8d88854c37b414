package io.clockwork.queue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link ReentrantLock} for short critical sections that a thread taking and releasing it in a tight loop (a
 * consumer polling and acking one message at a time) cannot keep from another thread for long: waiters first spin,
 * the one spinning longest with priority, and then wait in a fair queue that no thread following this protocol
 * overtakes. Thread-safe, as any lock; {@link #newCondition() conditions} work as {@code ReentrantLock}'s (a
 * signalled thread re-acquires in the fair queue).
 *
 * <h2>Why</h2>
 * {@code ReentrantLock}'s non-fair mode lets the releasing thread take the lock straight back: it still holds the
 * lock's cache line, while a waiter is parked and needs tens of microseconds to wake, and usually loses again when
 * it does. On two cores a loop of short critical sections kept a producer out for 20-75 ms that way (the scale
 * harness's expiry storm, with no collection in the window). The fair mode alone hands the lock over in order but
 * parks every waiter, so each handover costs a wake-up: the same storm ran 30 times slower.
 *
 * <h2>Protocol</h2>
 * <ol>
 *   <li>A thread takes the free lock at once, unless a thread is parked in the queue or another spins with
 *       priority.</li>
 *   <li>Otherwise it spins, taking the lock whenever it is free under the same condition. After
 *       {@value #CLAIM_AFTER_MICROS} µs it claims to be the <i>heir</i> (one thread at a time): the others then
 *       leave the free lock to it, so when the holder releases, the heir, spinning, takes it within a cache
 *       transfer.</li>
 *   <li>An heir that has spun {@value #HEIR_SPIN_MICROS} µs (the holder is in a long critical section, or off its
 *       core), and any other thread after {@value #SPIN_MICROS} µs, gives up spinning and parks in the lock's fair
 *       queue, the heir keeping its claim until it has the lock; while anyone is parked there, the free lock is
 *       left to the queue, whose head is woken by every release.</li>
 * </ol>
 * A thread that already holds the lock re-enters at once. Every path ends in the fair queue, so the protocol adds no
 * way to block: it only decides who takes a free lock. Its cost without contention is two volatile reads beside
 * the compare-and-set.
 */
final class SpinThenParkLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;
    static final long CLAIM_AFTER_MICROS = 2;
    static final long SPIN_MICROS = 100;
    static final long HEIR_SPIN_MICROS = 1_000;
    private static final long CLAIM_AFTER_NANOS = TimeUnit.MICROSECONDS.toNanos(CLAIM_AFTER_MICROS);
    private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(SPIN_MICROS);
    private static final long HEIR_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(HEIR_SPIN_MICROS);
    private static final VarHandle HEIR;

    static {
        try {
            HEIR = MethodHandles.lookup().findVarHandle(SpinThenParkLock.class, "heir", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The thread that spins with priority, or null. */
    private volatile transient Thread heir;

    /** Creates an unlocked lock whose queue is fair. */
    SpinThenParkLock() {
        super(true);
    }

    @Override
    public void lock() {
        Thread me = Thread.currentThread();
        int spun = spin(me);
        if (spun == TAKEN) {
            return;
        }
        try {
            super.lock();
        } finally {
            release(spun, me);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Thread me = Thread.currentThread();
        int spun = spin(me);
        if (spun == TAKEN) {
            return;
        }
        try {
            super.lockInterruptibly();
        } finally {
            release(spun, me);
        }
    }

    /** The lock was taken while spinning. */
    private static final int TAKEN = 0;
    /** The caller must wait in the queue (or re-enters through it). */
    private static final int QUEUE = 1;
    /** The caller must wait in the queue, keeping its claim until it has the lock. */
    private static final int QUEUE_AS_HEIR = 2;

    /** @return {@link #TAKEN}, {@link #QUEUE} or {@link #QUEUE_AS_HEIR} */
    private int spin(Thread me) {
        if (mayTake(me) && tryLock()) {
            return TAKEN;
        }
        if (isHeldByCurrentThread()) {
            return QUEUE;
        }
        long start = System.nanoTime();
        boolean claimed = false;
        while (true) {
            if (mayTake(me) && tryLock()) {
                release(claimed ? QUEUE_AS_HEIR : QUEUE, me);
                return TAKEN;
            }
            long waited = System.nanoTime() - start;
            if (me.isInterrupted()) {
                release(claimed ? QUEUE_AS_HEIR : QUEUE, me);
                return QUEUE;
            }
            if (waited > (claimed ? HEIR_SPIN_NANOS : SPIN_NANOS)) {
                // An heir parks with its claim: until it has the lock, the others leave the free lock to the queue.
                return claimed ? QUEUE_AS_HEIR : QUEUE;
            }
            if (!claimed && waited > CLAIM_AFTER_NANOS && heir == null) {
                claimed = HEIR.compareAndSet(this, null, me);
            }
            Thread.onSpinWait();
        }
    }

    private void release(int spun, Thread me) {
        if (spun == QUEUE_AS_HEIR) {
            HEIR.compareAndSet(this, me, null);
        }
    }

    /** @return true if {@code me} may take the free lock: nobody parked in the queue, and no other heir */
    private boolean mayTake(Thread me) {
        Thread h = heir;
        return (h == null || h == me) && !hasQueuedThreads();
    }

    /** @return the thread spinning with priority, or null (for tests) */
    Thread heir() {
        return heir;
    }
}
