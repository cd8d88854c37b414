package io.clockwork.timer;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Reported to a {@link WheelTimer}'s failure handler when the timer's {@link WheelTimer.Builder#executor executor}
 * refuses a timeout that fell due: its task never ran and never will. Immutable once thrown.
 *
 * <p>It is the handler's way to tell a refusal from a task that failed, since a task may itself throw a
 * {@link RejectedExecutionException}: a task failure reaches the handler as what the task threw, a refusal as this
 * type, which carries the {@link Timeout} (so the handler can see which task was lost, and may run it elsewhere)
 * and has the executor's exception as its cause.
 */
public class TimeoutRejectedException extends RejectedExecutionException {

    private static final long serialVersionUID = 1L;

    /** Not serialized: a timeout belongs to a live timer. */
    private final transient Timeout timeout;

    /**
     * @param timerName the timer's name, for the message
     * @param timeout   the timeout whose task was refused
     * @param executor  the executor that refused it, for the message
     * @param cause     what the executor threw
     */
    TimeoutRejectedException(String timerName, Timeout timeout, Executor executor, Throwable cause) {
        super("timer '" + timerName + "': executor " + describe(executor) + " refused task " + describe(timeout.task())
                + ", which will not run: " + cause, cause);
        this.timeout = timeout;
    }

    /** A user object's {@code toString}, or its class if that throws: the report must not fail on the driver. */
    private static String describe(Object o) {
        try {
            return String.valueOf(o);
        } catch (RuntimeException e) {
            return o.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(o));
        }
    }

    /** @return the timeout whose task was refused; null after deserialization */
    public Timeout timeout() {
        return timeout;
    }
}
