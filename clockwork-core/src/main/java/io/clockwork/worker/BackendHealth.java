package io.clockwork.worker;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A worker's view of its backend: how many calls of each kind failed in a row, how long to back off after the last
 * failure, and whether the backend is out. Thread-safe.
 *
 * <p>Backoff is bounded exponential, per kind of operation: {@link #MIN_BACKOFF_NANOS} after one failure, doubling
 * per further failure up to {@link #MAX_BACKOFF_NANOS}, so a worker whose backend is down asks it a few times a second
 * at most and resumes within that bound once it is back.
 *
 * <p>Logging is per worker, one line per change of state: a warning when a call fails while the backend answered
 * (the outage begins: which call, and the error's first line) and an info line when a call succeeds again (it ends:
 * how many calls failed meanwhile). An outage makes every kind of call fail (poll, ack, extend), so logging per kind
 * would repeat the news; the stack trace of the failure that began the outage goes to debug level, those of the
 * failures during it to trace level.
 */
final class BackendHealth {

    /** Operations a worker calls on its queue, each with its own failure count. */
    enum Operation {
        POLL("poll"), ACK("ack"), EXTEND("extend"), NACK("nack"), DEAD_LETTER("deadLetter"), RELEASE("release");

        final String label;

        Operation(String label) {
            this.label = label;
        }
    }

    static final long MIN_BACKOFF_NANOS = 50_000_000L;
    static final long MAX_BACKOFF_NANOS = 2_000_000_000L;

    private static final System.Logger LOG = System.getLogger(Worker.class.getName());

    private final String subject;
    private final AtomicIntegerArray failures = new AtomicIntegerArray(Operation.values().length);
    /** Whether a call failed since the last success; written under this object's monitor. */
    private volatile boolean out;
    /** Calls failed since the outage began; guarded by this object's monitor. */
    private long failedDuringOutage;

    /** @param subject what the log lines name, e.g. "worker 'emails' of queue 'emails'" */
    BackendHealth(String subject) {
        this.subject = subject;
    }

    /** Records a failure, logging it if it begins an outage; returns how long to back off. */
    long failed(Operation op, RuntimeException error) {
        int n = failures.incrementAndGet(op.ordinal());
        boolean began;
        synchronized (this) {
            failedDuringOutage++;
            began = !out;
            if (began) {
                out = true;
                LOG.log(System.Logger.Level.WARNING, subject + ": the backend fails (" + op.label + ": "
                        + firstLine(error) + "); backing off and retrying until it answers again");
            }
        }
        LOG.log(began ? System.Logger.Level.DEBUG : System.Logger.Level.TRACE,
                () -> subject + ": " + op.label + " failed", error);
        return backoffNanos(n);
    }

    /** Records a success, logging the end of an outage. Writes nothing while healthy. */
    void succeeded(Operation op) {
        if (failures.get(op.ordinal()) != 0) {
            failures.set(op.ordinal(), 0);
        }
        if (out) {
            synchronized (this) {
                if (out) {
                    out = false;
                    LOG.log(System.Logger.Level.INFO, subject + ": the backend answers again (" + op.label
                            + " works) after " + failedDuringOutage + " failed call(s)");
                    failedDuringOutage = 0;
                }
            }
        }
    }

    /** @return the failures in a row of {@code op} */
    int failures(Operation op) {
        return failures.get(op.ordinal());
    }

    /** @return the backoff after {@code n} failures in a row */
    static long backoffNanos(int n) {
        if (n <= 0) {
            return 0L;
        }
        return Math.min(MAX_BACKOFF_NANOS, MIN_BACKOFF_NANOS << Math.min(n - 1, 20));
    }

    /** The error's class and the first line of its message: a log line stays one line. */
    static String firstLine(Throwable e) {
        String text = e.toString();
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end).stripTrailing() + " ...";
    }
}
