package io.clockwork.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A wheel entry with a life cycle decided by CAS, so that any thread may cancel while the owner expires.
 * Thread-safe state transitions; the wheel links belong to the owner.
 *
 * <p>States: {@code PENDING} until exactly one of cancel (any thread), expire (owner) or
 * abandon (owner, when the timer stops) wins the CAS.
 *
 * <p>The state word also carries, in its upper {@value MpscInbox#SEQUENCE_BITS} bits, the sequence number the
 * timer's inbox gives the entry, which is how the timer counts schedules without a counter (see
 * {@link MpscInbox}): the number costs no field, so an entry stays at 40 bytes. The number is written before the
 * entry is published and never changes after; transitions change only the two low bits.
 */
public abstract class TimerEntry extends WheelEntry {

    public static final int PENDING = 0;
    public static final int CANCELLED = 1;
    public static final int EXPIRED = 2;
    public static final int ABANDONED = 3;

    private static final int STATUS_BITS = 2;
    private static final int STATUS_MASK = (1 << STATUS_BITS) - 1;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TimerEntry.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Sequencer for entries no other thread can reach before their offer ({@link io.clockwork.timer.WheelTimer}'s):
     * a plain store, published by the inbox's CAS.
     */
    public static final MpscInbox.Sequencer<TimerEntry> UNSHARED = new StateSequencer(false);

    /**
     * Sequencer for entries another thread may cancel before their offer (the Kafka face's {@code SystemTimer}, whose
     * task is bound to the entry first, as in Kafka): a CAS that keeps such a cancel.
     */
    public static final MpscInbox.Sequencer<TimerEntry> SHARED = new StateSequencer(true);

    /** Keeps the inbox sequence number in the state word's upper bits. */
    private static final class StateSequencer implements MpscInbox.Sequencer<TimerEntry> {
        private final boolean shared;

        StateSequencer(boolean shared) {
            this.shared = shared;
        }

        @Override
        public int sequence(TimerEntry e) {
            return e.state >>> STATUS_BITS;
        }

        @Override
        public void sequence(TimerEntry e, int sequence) {
            if (!shared) {
                STATE.set(e, sequence << STATUS_BITS);
                return;
            }
            int s;
            do {
                s = e.state;
            } while (!STATE.compareAndSet(e, s, sequence << STATUS_BITS | s & STATUS_MASK));
        }
    }

    /** The status in the low bits, the inbox sequence number above them. */
    private volatile int state;

    /** @return one of {@link #PENDING}, {@link #CANCELLED}, {@link #EXPIRED}, {@link #ABANDONED} */
    public final int state() {
        return state & STATUS_MASK;
    }

    public final boolean isPending() {
        return (state & STATUS_MASK) == PENDING;
    }

    /** @return the state's name, for {@code toString} */
    public final String stateName() {
        return switch (state()) {
            case PENDING -> "pending";
            case CANCELLED -> "cancelled";
            case EXPIRED -> "expired";
            default -> "abandoned";
        };
    }

    /** @return true if this call moved the entry from pending to {@code target} */
    public final boolean transition(int target) {
        int s;
        do {
            s = state;
            if ((s & STATUS_MASK) != PENDING) {
                return false;
            }
            // A failed CAS with the status still pending means the sequence number was being written (SHARED).
        } while (!STATE.compareAndSet(this, s, s | target));
        return true;
    }
}
