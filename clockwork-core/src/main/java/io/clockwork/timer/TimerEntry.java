package io.clockwork.timer;

import io.clockwork.wheel.WheelEntry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A wheel entry with a life cycle decided by CAS, so that any thread may cancel while the owner expires.
 * Thread-safe state transitions; the wheel links belong to the owner.
 *
 * <p>States: {@code PENDING} until exactly one of cancel (any thread), expire (owner) or
 * abandon (owner, when the timer stops) wins the CAS.
 */
abstract class TimerEntry extends WheelEntry {

    static final int PENDING = 0;
    static final int CANCELLED = 1;
    static final int EXPIRED = 2;
    static final int ABANDONED = 3;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TimerEntry.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int state;

    final int state() {
        return state;
    }

    final boolean isPending() {
        return state == PENDING;
    }

    /** @return the state's name, for {@code toString} */
    final String stateName() {
        return switch (state) {
            case PENDING -> "pending";
            case CANCELLED -> "cancelled";
            case EXPIRED -> "expired";
            default -> "abandoned";
        };
    }

    /** @return true if this call moved the entry from pending to {@code target} */
    final boolean transition(int target) {
        return state == PENDING && STATE.compareAndSet(this, PENDING, target);
    }
}
