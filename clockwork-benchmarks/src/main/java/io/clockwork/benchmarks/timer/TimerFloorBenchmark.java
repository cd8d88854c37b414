package io.clockwork.benchmarks.timer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The floor under benchmark 1's one-producer pair on the machine it runs on: what a timer that dates each timer at
 * the call must do per schedule+cancel pair, with nothing else. Run it in the same run as the rivals' pairs
 * ({@link BusyHeapBenchmark#oneProducer}) to see how much of each pair is left to the timer's own design.
 *
 * <ul>
 *   <li>{@link #clockRead}: one {@link System#nanoTime()}. A timer that dates a timer at the call must read the
 *       clock there: a deadline computed from an older reading is early by the reading's age, which nothing bounds
 *       (the thread that refreshed it may be descheduled). Every rival reads it once per schedule; Clockwork's
 *       {@code WheelTimer} does only for delays under about 14 s, and leaves longer ones (this benchmark's hour) to
 *       its driver to date, later than the call, so never early.</li>
 *   <li>{@link #clockAllocateCas}: the clock read, a 40-byte handle (the size of Clockwork's {@code WheelTimeout})
 *       that escapes into a ring as a handle escapes into a timer, and one compare-and-set of its state, the cancel
 *       that must win or lose exactly once against the timer's expiry.</li>
 * </ul>
 * Thread-safety: JMH runs each method on one thread with its own state.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Fork(jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class TimerFloorBenchmark {

    private static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final int RING = 1024;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Handle.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Handle[] ring = new Handle[RING];
    private final Runnable task = () -> { };
    private int next;

    /** @return the clock's reading */
    @Benchmark
    public long clockRead() {
        return System.nanoTime();
    }

    /** @return whether the cancel won, so the pair is not dead code */
    @Benchmark
    public boolean clockAllocateCas() {
        Handle h = new Handle(task, this);
        h.deadline = System.nanoTime() + HOUR_NANOS;
        ring[next++ & (RING - 1)] = h;
        return STATE.compareAndSet(h, 0, 1);
    }

    /** A timer handle's fields: a deadline, two links, the task, the timer, a state; 40 bytes with compressed oops. */
    static final class Handle {
        long deadline;
        Handle prev;
        Handle next;
        final Runnable task;
        final Object timer;
        volatile int state;

        Handle(Runnable task, Object timer) {
            this.task = task;
            this.timer = timer;
        }
    }
}
