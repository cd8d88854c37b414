package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.ForwardingDelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueStats;
import io.clockwork.testing.queue.DelayedQueueModelCheck;
import io.clockwork.time.ManualTicker;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.state.ActionChain;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@link DelayedQueueModelCheck} on {@link InMemoryDelayedQueue} with every offer and every cancel made while another
 * thread holds the queue's lock, so that they take the paths that do not wait for it (the inbox, the claim
 * CAS) and the next lock holder takes them in (an offer that may replace or extend a message waits for the lock: the
 * wait ends when the holder lets go); the model must still agree after every call. The lock is held by a thread
 * calling {@link DelayedQueue#stats()}, stalled inside the queue's own ticker read ({@link StallingTicker}).
 */
class InMemoryDelayedQueueContendedProperties extends DelayedQueueModelCheck {

    private static final long TIMEOUT_SECONDS = 20;
    private static final ExecutorService HOLDERS = daemons("lock-holder");
    private static final ExecutorService CALLERS = daemons("producer");

    InMemoryDelayedQueueContendedProperties() {
        super(true);
    }

    private static ExecutorService daemons(String name) {
        return Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    @AfterContainer
    static void stopThreads() {
        HOLDERS.shutdownNow();
        CALLERS.shutdownNow();
    }

    @Override
    protected DelayedQueue<String> newQueue(Consumer<DelayedQueueBuilder<String, ?>> options, ManualTicker ticker) {
        StallingTicker stalling = new StallingTicker(ticker);
        LockHolder holder = new LockHolder(stalling);
        InMemoryDelayedQueue.Builder<String> builder =
                InMemoryDelayedQueue.<String>builder().codec(Codec.string()).ticker(stalling);
        options.accept(builder);
        InMemoryDelayedQueue<String> queue = builder.build();
        holder.queue = queue;
        return new Contended(queue, holder);
    }

    @Property(tries = 300)
    void producersThatFindTheLockHeldAgreeWithTheModel(@ForAll("contendedChains") ActionChain<Run> chain) {
        check(chain);
    }

    @Provide
    Arbitrary<ActionChain<Run>> contendedChains() {
        return chains(60);
    }

    /** The queue with its producers' calls made while the lock is held elsewhere. */
    private static final class Contended extends ForwardingDelayedQueue<String> {
        private final LockHolder holder;

        Contended(DelayedQueue<String> queue, LockHolder holder) {
            super(queue);
            this.holder = holder;
        }

        @Override
        public String offer(String value, Duration delay) {
            return holder.whileHeld(() -> super.offer(value, delay));
        }

        @Override
        public boolean offer(String id, String value, Duration delay) {
            return holder.whileHeld(() -> super.offer(id, value, delay));
        }

        @Override
        public List<String> offerAll(List<? extends String> values, Duration delay) {
            return holder.whileHeld(() -> super.offerAll(values, delay));
        }

        @Override
        public List<String> offerAll(Map<String, ? extends String> messages, Duration delay) {
            return holder.whileHeld(() -> super.offerAll(messages, delay));
        }

        @Override
        public Offered offer(Message<? extends String> message) {
            return holder.whileHeld(() -> super.offer(message), mayConflict(message));
        }

        @Override
        public List<Offered> offerAll(List<? extends Message<? extends String>> messages) {
            return holder.whileHeld(() -> super.offerAll(messages), messages.stream().anyMatch(Contended::mayConflict));
        }

        /** A replace or an extend of a caller's id: the queue settles it under the lock, so its call may wait. */
        private static boolean mayConflict(Message<?> message) {
            return message != null && message.id().isPresent() && message.onConflict() != Message.Conflict.KEEP;
        }

        @Override
        public boolean cancel(String id) {
            return holder.whileHeld(() -> super.cancel(id));
        }
    }

    /** Makes a queue's producer calls while another thread holds its lock. Used by one test thread at a time. */
    private static final class LockHolder {
        private final StallingTicker ticker;
        InMemoryDelayedQueue<String> queue;

        LockHolder(StallingTicker ticker) {
            this.ticker = ticker;
        }

        /**
         * Runs {@code call} on another thread while a third holds the queue's lock, then lets that one finish; fails
         * if {@code call} does not return in time (it waited for the lock).
         */
        <T> T whileHeld(Supplier<T> call) {
            return whileHeld(call, false);
        }

        /**
         * As {@link #whileHeld(Supplier)}; if {@code mayWait}, the call may wait for the lock: once it does, the holder
         * lets go.
         */
        <T> T whileHeld(Supplier<T> call, boolean mayWait) {
            Future<QueueStats> holding;
            try {
                holding = ticker.hold(HOLDERS, queue::stats, 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            try {
                AtomicReference<Thread> caller = new AtomicReference<>();
                Future<T> result = CALLERS.submit(() -> {
                    caller.set(Thread.currentThread());
                    return call.get();
                });
                if (mayWait) {
                    awaitDoneOrWaiting(result, caller);
                    ticker.release();
                }
                return result.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r; // the queue's own answer to bad input, which the model expects
                }
                throw new AssertionError(e.getCause());
            } catch (TimeoutException e) {
                throw new AssertionError("a producer's call waited for the lock held by another thread", e);
            } finally {
                ticker.release();
                try {
                    holding.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError("the lock holder failed", e);
                }
            }
        }

        private static void awaitDoneOrWaiting(Future<?> call, AtomicReference<Thread> caller) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (!call.isDone()) {
                Thread t = caller.get();
                if (t != null && t.getState() == Thread.State.WAITING) {
                    return;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the call neither finished nor waited");
                }
                Thread.onSpinWait();
            }
        }
    }
}
