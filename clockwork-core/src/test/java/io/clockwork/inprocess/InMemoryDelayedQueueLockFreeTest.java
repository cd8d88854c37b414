package io.clockwork.inprocess;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.QueueStats;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Offers and cancels while another thread holds the queue's lock: they complete without it, and whoever takes the
 * lock next sees exactly what they did. The lock is held by a thread stalled inside the queue's own clock read (a
 * {@link StallingTicker}), so the test holds it through the queue's real code path.
 */
class InMemoryDelayedQueueLockFreeTest {

    private static final long TIMEOUT_SECONDS = 20;

    private final StallingTicker ticker = new StallingTicker(new ManualTicker());
    private final InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().ticker(ticker).build();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "lock-free-test");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void close() {
        ticker.release();
        q.close();
        threads.shutdownNow();
    }

    @Test
    void offersAndCancelsCompleteWhileTheLockIsHeldAndTheNextHolderSeesThemAll() throws Exception {
        Future<QueueStats> holder = holdTheLock(q::stats);
        List<String> ids = within(() -> {
            List<String> offered = new ArrayList<>();
            offered.add(q.offer("a", Duration.ZERO));
            offered.add(q.offer("late", Duration.ofMillis(5)));
            String cancelled = q.offer("cancelled", Duration.ZERO);
            assertThat(q.offer("user-1", "first", Duration.ZERO)).isTrue();
            assertThat(q.offer("user-1", "again", Duration.ZERO)).as("the id is taken").isFalse();
            assertThat(q.cancel(cancelled)).isTrue();
            assertThat(q.cancel(cancelled)).as("a second cancel").isFalse();
            assertThat(q.cancel("never-offered")).isFalse();
            assertThat(q.cancel("user-1")).isTrue();
            assertThat(q.offer("user-1", "second", Duration.ZERO)).as("a cancel frees the id").isTrue();
            return offered;
        });
        assertThat(holder.isDone()).as("the lock was held throughout").isFalse();

        ticker.release();
        QueueStats seenByTheHolder = holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(seenByTheHolder.ready()).isEqualTo(2);
        assertThat(seenByTheHolder.delayed()).isEqualTo(1);
        assertThat(q.counters().orElseThrow().offered()).isEqualTo(5);

        assertThat(pollValue()).isEqualTo("a");
        assertThat(pollValue()).isEqualTo("second");
        assertThat(q.poll(Duration.ZERO)).isNull();
        ticker.time().advance(Duration.ofMillis(5));
        Delivery<String> late = q.poll(Duration.ZERO);
        assertThat(late.id()).isEqualTo(ids.get(1));
        assertThat(late.value()).isEqualTo("late");
    }

    @Test
    void batchOffersCompleteWhileTheLockIsHeldAndArriveWholeInOrder() throws Exception {
        assertThat(q.offer("taken", "before", Duration.ofDays(1))).isTrue();
        Future<QueueStats> holder = holdTheLock(q::stats);
        List<String> ids = within(() -> q.offerAll(List.of("a", "b", "c"), Duration.ZERO));
        Map<String, String> byId = new LinkedHashMap<>();
        byId.put("k1", "d");
        byId.put("taken", "skipped");
        byId.put("k2", "e");
        assertThat(within(() -> q.offerAll(byId, Duration.ZERO))).containsExactly("k1", "k2");
        assertThat(holder.isDone()).as("the lock was held throughout").isFalse();
        ticker.release();
        QueueStats seen = holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(seen.ready()).isEqualTo(5);
        assertThat(seen.delayed()).isEqualTo(1);
        List<String> delivered = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Delivery<String> d = q.poll(Duration.ZERO);
            delivered.add(d.id() + "=" + d.value());
        }
        assertThat(delivered).containsExactly(ids.get(0) + "=a", ids.get(1) + "=b", ids.get(2) + "=c", "k1=d", "k2=e");
        assertThat(q.cancel(ids.get(0))).as("in flight, still live").isTrue();
    }

    @Test
    void aProducerThatFindsABacklogFilesASliceAndItsOwnMessageBehindTheRest() throws Exception {
        String cancelled = q.offer("cancelled", Duration.ofDays(1));
        // A cancel that finds the lock free stalls inside it (its clock read), as a producer preempted there would.
        Future<Boolean> holder = holdTheLock(() -> q.cancel(cancelled));
        int backlog = 4 * StoreGuard.PRODUCER_HAND_OVER_LIMIT - 24;
        List<String> offered = within(() -> {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < backlog; i++) {
                ids.add(q.offer("m" + i, Duration.ZERO));
            }
            return ids;
        });
        assertThat(holder.isDone()).as("the lock was held throughout").isFalse();
        ticker.release();
        assertThat(holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue(); // it filed a slice of the backlog
        String last = q.offer("last", Duration.ZERO); // finds the lock free and the rest of the backlog taken in
        offered.add(last);

        assertThat(q.stats().ready()).isEqualTo(backlog + 1);
        assertThat(q.counters().orElseThrow().offered()).isEqualTo(backlog + 2);
        List<String> delivered = new ArrayList<>();
        for (Delivery<String> d; (d = q.poll(Duration.ZERO)) != null; ) {
            delivered.add(d.id());
        }
        assertThat(delivered).as("offer order, the last one last").containsExactlyElementsOf(offered);
    }

    @Test
    void aProducerThatLeavesItsMessageBehindABacklogStillWakesTheSleeperItConcerns() throws Exception {
        q.offer("in flight", Duration.ZERO);
        assertThat(q.poll(Duration.ZERO)).isNotNull();
        Future<Delivery<String>> sleeper = sleepingPoll(); // until the delivery's visibility timeout
        String cancelled = q.offer("cancelled", Duration.ofDays(1));
        Future<Boolean> holder = holdTheLock(() -> q.cancel(cancelled));
        int backlog = 3 * StoreGuard.PRODUCER_HAND_OVER_LIMIT; // the holder and "now" each take a third
        within(() -> {
            for (int i = 0; i < backlog; i++) {
                q.offer("far" + i, Duration.ofDays(2)); // due after the sleeper wakes: nobody is woken for them
            }
            return null;
        });
        ticker.release();
        assertThat(holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        within(() -> q.offer("now", Duration.ZERO)); // filed behind the backlog, which it must then file whole
        assertThat(sleeper.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("now");
    }

    @Test
    void aCancelWithoutTheLockEndsAnInFlightDeliveryAndItsReceiptFails() throws Exception {
        q.offer("x", Duration.ZERO);
        Delivery<String> d = q.poll(Duration.ZERO);
        Future<QueueStats> holder = holdTheLock(q::stats);
        assertThat(within(() -> q.cancel(d.id()))).isTrue();
        ticker.release();
        assertThat(holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).inFlight()).isZero();
        assertThat(d.ack()).isFalse();
        assertThat(d.nack(Duration.ZERO)).isFalse();
        assertThat(d.extend(Duration.ofSeconds(1))).isFalse();
        assertThat(q.counters().orElseThrow().acked()).isZero();
        ticker.time().advance(Duration.ofMinutes(10)); // past any visibility timeout: nothing comes back
        assertThat(q.poll(Duration.ZERO)).isNull();
    }

    @Test
    void aCancelWithoutTheLockKeepsAReadyMessageFromBeingDelivered() throws Exception {
        String id = q.offer("x", Duration.ZERO);
        q.offer("y", Duration.ZERO);
        Future<QueueStats> holder = holdTheLock(q::stats);
        assertThat(within(() -> q.cancel(id))).isTrue();
        ticker.release();
        holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(pollValue()).isEqualTo("y");
        assertThat(q.poll(Duration.ZERO)).isNull();
    }

    @Test
    void aDeadLetterCannotBeCancelledWithoutTheLockEither() throws Exception {
        String id = q.offer("x", Duration.ZERO);
        assertThat(q.poll(Duration.ZERO).deadLetter("bad")).isTrue();
        Future<QueueStats> holder = holdTheLock(q::stats);
        assertThat(within(() -> q.cancel(id))).isFalse();
        assertThat(within(() -> q.offer(id, "again", Duration.ZERO))).as("a dead letter keeps its id").isFalse();
        ticker.release();
        assertThat(holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).dead()).isEqualTo(1);
        assertThat(q.requeueDead(id)).isTrue();
        assertThat(q.cancel(id)).as("requeued, it is live again").isTrue();
    }

    @Test
    void anOfferDueAfterEverySleepersWakeNeedsNoLockAndAnEarlierOneWakesTheSleeper() throws Exception {
        q.offer("doomed", Duration.ZERO);
        Delivery<String> doomed = q.poll(Duration.ZERO);
        Future<Delivery<String>> sleeper = sleepingPoll(); // it sleeps until the delivery's visibility timeout
        // The holder stalls after taking in the inbox (in the dead-letter's time of death), so it files nothing
        // offered from now on: only the producer's own wake-up can bring the sleeper the message due now.
        Future<Boolean> holder = holdTheLock(() -> doomed.deadLetter("test"), 2);
        // The sleeper wakes within the visibility timeout anyway: an offer due in two days needs nobody woken.
        within(() -> q.offer("later", Duration.ofDays(2)));
        // One due now must wake it: the producer takes the lock for that, so it runs on a thread of its own.
        Future<String> now = threads.submit(() -> q.offer("now", Duration.ZERO));
        ticker.release();
        assertThat(holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        now.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(sleeper.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("now");
    }

    private String pollValue() throws InterruptedException {
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d).isNotNull();
        return d.value();
    }

    /** Starts {@code operation} on another thread and returns once that thread is stalled inside the queue's lock. */
    private <T> Future<T> holdTheLock(Callable<T> operation) throws InterruptedException {
        return holdTheLock(operation, 1);
    }

    /** As {@link #holdTheLock(Callable)}, stalling at the operation's {@code nthRead}-th reading of the ticker. */
    private <T> Future<T> holdTheLock(Callable<T> operation, int nthRead) throws InterruptedException {
        return ticker.hold(threads, operation, nthRead);
    }

    /** Runs {@code action} on another thread and fails if it does not finish in time (it waited for the lock). */
    private <T> T within(Callable<T> action) throws Exception {
        return threads.submit(action).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** Starts a long poll on another thread and returns once it sleeps (a sleeping poll does not hold the lock). */
    private Future<Delivery<String>> sleepingPoll() {
        AtomicReference<Thread> poller = new AtomicReference<>();
        Future<Delivery<String>> f = threads.submit(() -> {
            poller.set(Thread.currentThread());
            return q.poll(Duration.ofDays(1));
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (poller.get() == null || poller.get().getState() != Thread.State.TIMED_WAITING) {
            assertThat(f.isDone()).as("the poll returned instead of sleeping").isFalse();
            assertThat(System.nanoTime() - deadline).as("the poll went to sleep in time").isNegative();
            Thread.onSpinWait();
        }
        return f;
    }
}
