package io.clockwork.redisson;

import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;
import io.clockwork.redisson.RBlockingDeque;
import io.clockwork.redisson.RBlockingQueue;
import io.clockwork.redisson.RDelayedQueue;
import io.clockwork.redisson.RDeque;
import io.clockwork.redisson.RQueue;
import io.clockwork.redisson.RedissonClient;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour every backend of the Redisson face ({@link RedissonClient}, {@link RDelayedQueue} and its destination
 * {@link RBlockingQueue} or {@link RBlockingDeque}) must show, written once and run against each: a backend's test extends this class and
 * supplies a fresh client and a way to let the backend's clock move.
 *
 * <p>Shipped in clockwork-core's test-jar so that clockwork-redis runs the same tests against a real Redis.
 *
 * <p>The first group ports every test of Redisson's {@code RedissonDelayedQueueTest} with its assertions (the names
 * say the behaviour; each test's comment names the Redisson test). Redisson's tests count delays in seconds; here a
 * delay is a multiple of {@link #unit()}, and every check sits half a unit away from any due time, so that a backend
 * on a real clock has half a unit of margin either way. The second group is what a user of the face relies on beyond
 * Redisson's tests. The tests run one after another and let little time pass: a real-time backend with a unit of
 * 400 ms runs the whole contract in well under a minute.
 */
public abstract class RedissonFaceContract {

    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "redisson-contract-background");
        t.setDaemon(true);
        return t;
    });

    /** The client of the running test. */
    protected RedissonClient client;
    /** One {@link #unit()} in milliseconds, the unit of every delay the tests offer. */
    private long u;

    /**
     * Creates a client on a fresh, empty store: no queue of an earlier test is visible through it.
     *
     * @return the client; the contract shuts it down after the test
     */
    protected abstract RedissonClient newClient();

    /**
     * Lets {@code d} pass on the backend's clock: a manual clock advances, a real-time backend sleeps.
     *
     * @param d how much time must pass
     */
    protected abstract void passTime(Duration d);

    /**
     * The time unit every delay is a multiple of: Redisson's tests use seconds; a real-time backend keeps it short so
     * the contract runs quickly, and long enough that its clock's jitter stays well inside half a unit.
     *
     * @return the unit, at least 2 ms and a whole number of milliseconds
     */
    protected Duration unit() {
        return Duration.ofSeconds(1);
    }

    @BeforeEach
    void openClient() {
        u = unit().toMillis();
        assertThat(u).as("unit() in whole milliseconds").isGreaterThanOrEqualTo(2);
        client = newClient();
    }

    @AfterEach
    void closeClient() {
        background.shutdownNow();
        if (client != null && !client.isShutdown()) {
            client.shutdown();
        }
    }

    // ---- helpers ----

    /** Lets {@code units} units pass. */
    private void elapse(double units) {
        passTime(Duration.ofNanos(Math.round(unit().toNanos() * units)));
    }

    private <V> RBlockingQueue<V> queue(String name) {
        return client.getBlockingQueue(name);
    }

    /**
     * Runs {@code task} on a background thread and returns once that thread is blocked (waiting), so that time passed
     * after this call is time the task waits through.
     */
    private <T> Future<T> blockedInBackground(Callable<T> task) {
        AtomicReference<Thread> worker = new AtomicReference<>();
        Future<T> result = background.submit(() -> {
            worker.set(Thread.currentThread());
            return task.call();
        });
        Await.until("the background call blocks", () -> {
            Thread t = worker.get();
            if (result.isDone()) {
                return true;
            }
            return t != null && (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
        });
        assertThat(result.isDone()).as("the background call is blocked, not finished").isFalse();
        return result;
    }

    private static <T> T outcome(Future<T> f) throws Exception {
        Await.until("the background call returns", f::isDone);
        return f.get();
    }

    // ==== Redisson's RedissonDelayedQueueTest, ported ====

    /** Redisson: {@code testRemove}. */
    @Test
    void removedElementNeverReachesTheDestination() {
        RBlockingQueue<String> queue = queue("delay_queue");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        delayed.offer("1_1_1", 3 * u, MILLISECONDS);
        delayed.offer("1_1_2", 7 * u, MILLISECONDS);
        assertThat(delayed.contains("1_1_1")).isTrue();
        assertThat(delayed.remove("1_1_1")).isTrue();
        assertThat(delayed.contains("1_1_1")).isFalse();

        elapse(7.5);
        assertThat(queue).containsOnly("1_1_2");
    }

    /** Redisson: {@code testRemoveAll}. */
    @Test
    void removeAllKeepsEveryRemovedElementFromTheDestination() {
        RBlockingQueue<String> queue = queue("delay_queue");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        delayed.offer("1_1_1", 3 * u, MILLISECONDS);
        delayed.offer("1_1_2", 7 * u, MILLISECONDS);
        assertThat(delayed.contains("1_1_1")).isTrue();
        assertThat(delayed.contains("1_1_2")).isTrue();
        assertThat(delayed.removeAll(Arrays.asList("1_1_1", "1_1_2"))).isTrue();
        assertThat(delayed.contains("1_1_1")).isFalse();
        assertThat(delayed.contains("1_1_2")).isFalse();

        elapse(7.5);
        assertThat(queue.isEmpty()).isTrue();
    }

    /** Offers 3, 1, 2 with delays of 5, 2 and 1 units: offer order differs from due order. */
    private RDelayedQueue<Integer> threeOneTwo(RBlockingQueue<Integer> queue) {
        RDelayedQueue<Integer> delayed = client.getDelayedQueue(queue);
        delayed.offer(3, 5 * u, MILLISECONDS);
        delayed.offer(1, 2 * u, MILLISECONDS);
        delayed.offer(2, u, MILLISECONDS);
        return delayed;
    }

    /** Redisson: {@code testDealyedQueueRetainAll}. */
    @Test
    void retainAllKeepsOnlyTheGivenValuesAndReportsAChange() {
        RDelayedQueue<Integer> delayed = threeOneTwo(queue("test"));

        assertThat(delayed.retainAll(Arrays.asList(1, 2, 3))).isFalse();
        assertThat(delayed.retainAll(Arrays.asList(3, 1, 2, 8))).isFalse();
        assertThat(delayed.readAll()).containsExactly(3, 1, 2);

        assertThat(delayed.retainAll(Arrays.asList(1, 2))).isTrue();
        assertThat(delayed.readAll()).containsExactly(1, 2);

        delayed.destroy();
    }

    /** Redisson: {@code testDealyedQueueReadAll}. */
    @Test
    void readAllListsPendingElementsInOfferOrder() {
        RDelayedQueue<Integer> delayed = threeOneTwo(queue("test"));

        assertThat(delayed.readAll()).containsExactly(3, 1, 2);

        delayed.destroy();
    }

    /** Redisson: {@code testDealyedQueueRemoveAll}. */
    @Test
    void removeAllReportsWhetherAnyElementWasRemoved() {
        RDelayedQueue<Integer> delayed = threeOneTwo(queue("test"));

        assertThat(delayed.removeAll(Arrays.asList(1, 2))).isTrue();
        assertThat(delayed).containsExactly(3);
        assertThat(delayed.removeAll(Arrays.asList(3, 4))).isTrue();
        assertThat(delayed).isEmpty();

        delayed.destroy();
    }

    /** Redisson: {@code testDealyedQueueContainsAll}. */
    @Test
    void containsAllIsTrueWhenEveryGivenValueIsPendingEvenRepeated() {
        RDelayedQueue<Integer> delayed = threeOneTwo(queue("test"));

        assertThat(delayed.containsAll(Arrays.asList(1, 2))).isTrue();
        assertThat(delayed.containsAll(Arrays.asList(1, 2, 4))).isFalse();

        assertThat(delayed.containsAll(Arrays.asList(1, 1))).isTrue();
        assertThat(delayed.containsAll(Arrays.asList(1, 2, 1))).isTrue();

        delayed.destroy();
    }

    /** Redisson: {@code testDealyedQueueContains}. */
    @Test
    void containsFindsPendingElements() {
        RDelayedQueue<Integer> delayed = threeOneTwo(queue("test"));

        assertThat(delayed.contains(1)).isTrue();
        assertThat(delayed.contains(4)).isFalse();

        delayed.destroy();
    }

    /** Redisson: {@code testDealyedQueueRemove}. */
    @Test
    void removeByValueTakesOutThatElementOnly() {
        RDelayedQueue<Integer> delayed = threeOneTwo(queue("test"));

        assertThat(delayed.remove(4)).isFalse();
        assertThat(delayed.remove(3)).isTrue();
        assertThat(delayed).containsExactly(1, 2);

        delayed.destroy();
    }

    /** Redisson: {@code testDealyedQueuePeek}. */
    @Test
    void peekShowsTheFirstOfferedNotTheFirstDue() {
        RDelayedQueue<Integer> delayed = threeOneTwo(queue("test"));

        assertThat(delayed.peek()).isEqualTo(3);

        delayed.destroy();
    }

    /** Redisson: {@code testDealyedQueuePollLastAndOfferFirstTo}. */
    @Test
    void pollLastAndOfferFirstToMovesTheLastOfferedToTheHeadOfAnotherQueue() {
        RDelayedQueue<Integer> delayed = client.getDelayedQueue(queue("test"));
        delayed.offer(3, 5 * u, MILLISECONDS);
        delayed.offer(2, 2 * u, MILLISECONDS);
        delayed.offer(1, u, MILLISECONDS);

        RQueue<Integer> queue2 = client.getQueue("deque2");
        queue2.offer(6);
        queue2.offer(5);
        queue2.offer(4);

        assertThat(delayed.pollLastAndOfferFirstTo(queue2.getName())).isEqualTo(1);
        assertThat(queue2).containsExactly(1, 6, 5, 4);

        delayed.destroy();
    }

    /** Redisson: {@code testDelayedQueueOrder}. */
    @Test
    void pollTakesPendingElementsInOfferOrderBeforeTheyAreDue() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        delayed.offer("1", u, MILLISECONDS);
        delayed.offer("4", 4 * u, MILLISECONDS);
        delayed.offer("3", 3 * u, MILLISECONDS);
        delayed.offer("2", 2 * u, MILLISECONDS);

        assertThat(delayed).containsExactly("1", "4", "3", "2");

        assertThat(delayed.poll()).isEqualTo("1");
        assertThat(delayed.poll()).isEqualTo("4");
        assertThat(delayed.poll()).isEqualTo("3");
        assertThat(delayed.poll()).isEqualTo("2");

        assertThat(queue.isEmpty()).isTrue();

        assertThat(queue.poll()).isNull();

        delayed.destroy();
    }

    /** Redisson: {@code testPollLimited}. */
    @Test
    void pollWithALimitTakesElementsEarlyAndNoneReachesTheDestination() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        delayed.offer("1", u, MILLISECONDS);
        delayed.offer("2", 2 * u, MILLISECONDS);
        delayed.offer("3", 3 * u, MILLISECONDS);
        delayed.offer("4", 4 * u, MILLISECONDS);

        assertThat(delayed.poll(3)).containsExactly("1", "2", "3");
        assertThat(delayed.poll(2)).containsExactly("4");
        assertThat(delayed.poll(2)).isEmpty();

        elapse(4.5);
        assertThat(queue.isEmpty()).isTrue();

        assertThat(queue.poll()).isNull();
        assertThat(queue.poll()).isNull();

        delayed.destroy();
    }

    /** Redisson: {@code testPoll}. */
    @Test
    void polledElementsNeverReachTheDestination() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        delayed.offer("1", u, MILLISECONDS);
        delayed.offer("2", 2 * u, MILLISECONDS);
        delayed.offer("3", 3 * u, MILLISECONDS);
        delayed.offer("4", 4 * u, MILLISECONDS);

        assertThat(delayed.poll()).isEqualTo("1");
        assertThat(delayed.poll()).isEqualTo("2");
        assertThat(delayed.poll()).isEqualTo("3");
        assertThat(delayed.poll()).isEqualTo("4");

        elapse(4.5);
        assertThat(queue.isEmpty()).isTrue();

        assertThat(queue.poll()).isNull();
        assertThat(queue.poll()).isNull();

        delayed.destroy();
    }

    /** Redisson: {@code testDealyedQueue}; its checks move to half a unit after each due time. */
    @Test
    void elementsReachTheDestinationInDueOrderWhenDueAndLeaveThePendingView() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        delayed.offer("1", u, MILLISECONDS);
        delayed.offer("2", 5 * u, MILLISECONDS);
        delayed.offer("4", 4 * u, MILLISECONDS);
        delayed.offer("2", 2 * u, MILLISECONDS);
        delayed.offer("3", 3 * u, MILLISECONDS);

        assertThat(delayed).containsExactly("1", "2", "4", "2", "3");

        elapse(0.5);
        assertThat(queue.isEmpty()).isTrue();
        elapse(1);
        assertThat(queue).containsExactly("1");
        assertThat(delayed).containsExactly("2", "4", "2", "3");

        elapse(1);
        assertThat(queue).containsExactly("1", "2");
        assertThat(delayed).containsExactly("2", "4", "3");

        elapse(1);
        assertThat(queue).containsExactly("1", "2", "3");
        assertThat(delayed).containsExactly("2", "4");

        elapse(1);
        assertThat(queue).containsExactly("1", "2", "3", "4");
        assertThat(delayed).containsExactly("2");

        elapse(1);
        assertThat(queue).containsExactly("1", "2", "3", "4", "2");
        assertThat(delayed).isEmpty();

        assertThat(queue.poll()).isEqualTo("1");
        assertThat(queue.poll()).isEqualTo("2");
        assertThat(queue.poll()).isEqualTo("3");
        assertThat(queue.poll()).isEqualTo("4");
        assertThat(queue.poll()).isEqualTo("2");

        delayed.destroy();
    }

    // ==== Beyond Redisson's tests ====

    // ---- the destination ----

    @Test
    void elementOfferedToTheDestinationIsDueAtOnce() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        assertThat(queue.offer("now")).isTrue();
        assertThat(queue.peek()).isEqualTo("now");
        assertThat(delayed.isEmpty()).as("the pending view holds delayed elements only").isTrue();
        assertThat(queue.poll()).isEqualTo("now");
        assertThat(queue.poll()).isNull();
    }

    @Test
    void destinationHoldsDueElementsAndDirectOffersInTheOrderTheyBecameDue() throws InterruptedException {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        queue.add("direct-1");
        delayed.offer("due-1", u, MILLISECONDS);
        delayed.offer("due-2", 2 * u, MILLISECONDS);
        elapse(1.5);
        queue.put("direct-2");
        elapse(1);
        queue.offer("direct-3", 1, TimeUnit.SECONDS);

        assertThat(queue.readAll()).containsExactly("direct-1", "due-1", "direct-2", "due-2", "direct-3");
        assertThat(queue.element()).isEqualTo("direct-1");
        assertThat(queue.remove()).isEqualTo("direct-1");
        assertThat(queue.poll(2)).containsExactly("due-1", "direct-2");
        assertThat(queue.drainTo(new ArrayList<>(), 1)).isOne();
        List<String> drained = new ArrayList<>();
        assertThat(queue.drainTo(drained)).isOne();
        assertThat(drained).containsExactly("direct-3");
        assertThat(queue).isEmpty();
        assertThatThrownBy(queue::remove).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(queue::element).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void elementsDueAtTheSameTimeArriveInOfferOrder() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        for (String v : List.of("a", "b", "c", "d", "e")) {
            delayed.offer(v, u, MILLISECONDS);
        }
        elapse(1.5);
        assertThat(queue.readAll()).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void zeroOrNegativeDelayIsDueAtOnce() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        delayed.offer("zero", 0, MILLISECONDS);
        delayed.offer("negative", -5, TimeUnit.SECONDS);

        assertThat(queue.readAll()).containsExactly("zero", "negative");
        assertThat(delayed.isEmpty()).isTrue();
    }

    @Test
    void elementIsNotDueBeforeItsDelay() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);

        delayed.offer("x", 2 * u, MILLISECONDS);
        elapse(1.5);
        assertThat(queue.poll()).isNull();
        assertThat(delayed.readAll()).containsExactly("x");
        elapse(1);
        assertThat(queue.poll()).isEqualTo("x");
    }

    @Test
    void destinationPollLastAndOfferFirstToMovesItsTail() {
        RBlockingQueue<String> queue = queue("test");
        RQueue<String> other = client.getQueue("other");
        queue.addAll(List.of("a", "b", "c"));
        other.add("z");

        assertThat(queue.pollLastAndOfferFirstTo("other")).isEqualTo("c");
        assertThat(queue.readAll()).containsExactly("a", "b");
        assertThat(other.readAll()).containsExactly("c", "z");
        assertThat(client.<String>getQueue("empty").pollLastAndOfferFirstTo("other")).isNull();
        assertThat(other.readAll()).containsExactly("c", "z");
    }

    @Test
    void destinationIsUnbounded() {
        assertThat(queue("test").remainingCapacity()).isEqualTo(Integer.MAX_VALUE);
    }

    // ---- blocking consumers ----

    @Test
    void blockedTakeWakesWhenAnElementFallsDue() throws Exception {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("x", u, MILLISECONDS);

        Future<String> taken = blockedInBackground(queue::take);
        elapse(0.5);
        assertThat(taken.isDone()).as("not due yet").isFalse();
        elapse(1);
        assertThat(outcome(taken)).isEqualTo("x");
        assertThat(queue.isEmpty()).isTrue();
        assertThat(delayed.isEmpty()).isTrue();
    }

    @Test
    void blockedTakeWakesForAnEarlierElementOfferedWhileItSleeps() throws Exception {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("late", 20 * u, MILLISECONDS);

        Future<String> taken = blockedInBackground(queue::take);
        delayed.offer("early", u, MILLISECONDS);
        elapse(1.5);
        assertThat(outcome(taken)).isEqualTo("early");
        assertThat(delayed.readAll()).containsExactly("late");
    }

    @Test
    void blockedTakeWakesForAnElementOfferedToTheDestination() throws Exception {
        RBlockingQueue<String> queue = queue("test");

        Future<String> taken = blockedInBackground(queue::take);
        queue("test").offer("direct");
        assertThat(outcome(taken)).isEqualTo("direct");
    }

    @Test
    void timedPollReturnsAnElementThatFallsDueWithinItsTimeout() throws Exception {
        RBlockingQueue<String> queue = queue("test");
        client.<String>getDelayedQueue(queue).offer("x", u, MILLISECONDS);

        Future<String> polled = blockedInBackground(() -> queue.poll(10 * u, MILLISECONDS));
        elapse(1.5);
        assertThat(outcome(polled)).isEqualTo("x");
    }

    @Test
    void timedPollReturnsNullWhenNothingFallsDueWithinItsTimeout() throws Exception {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("later", 3 * u, MILLISECONDS);

        Future<String> polled = blockedInBackground(() -> queue.poll(u, MILLISECONDS));
        elapse(1.5);
        assertThat(outcome(polled)).isNull();
        assertThat(delayed.readAll()).as("the element stays pending").containsExactly("later");
        assertThat(queue.poll(0, MILLISECONDS)).as("a zero timeout does not wait").isNull();
    }

    // ---- duplicates, values and codecs ----

    @Test
    void removeOfADuplicateTakesTheFirstCopyInOfferOrder() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("x", 3 * u, MILLISECONDS);
        delayed.offer("y", u, MILLISECONDS);
        delayed.offer("x", 2 * u, MILLISECONDS);

        assertThat(delayed.remove("x")).isTrue();
        assertThat(delayed.readAll()).containsExactly("y", "x");
        assertThat(delayed.contains("x")).as("one copy is left").isTrue();
        assertThat(delayed.containsAll(List.of("x", "x", "y"))).isTrue();

        elapse(2.5);
        assertThat(queue.readAll()).as("the copy left is the one due after two units").containsExactly("y", "x");
        assertThat(delayed.contains("x")).isFalse();
        assertThat(delayed.remove("x")).isFalse();
    }

    @Test
    void removeAllAndRetainAllActOnEveryCopy() {
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue("test"));
        for (String v : List.of("a", "b", "a", "c", "b", "a")) {
            delayed.offer(v, u, MILLISECONDS);
        }
        assertThat(delayed.removeAll(List.of("a"))).isTrue();
        assertThat(delayed.readAll()).containsExactly("b", "c", "b");
        assertThat(delayed.removeAll(List.of())).isFalse();
        assertThat(delayed.retainAll(List.of("b", "zz"))).isTrue();
        assertThat(delayed.readAll()).containsExactly("b", "b");
        assertThat(delayed.retainAll(List.of())).as("retaining nothing clears").isTrue();
        assertThat(delayed.isEmpty()).isTrue();
        assertThat(delayed.retainAll(List.of())).isFalse();
    }

    @Test
    void destinationRemoveByValueTakesTheFirstCopy() {
        RBlockingQueue<String> queue = queue("test");
        queue.addAll(List.of("a", "b", "a", "c"));
        assertThat(queue.contains("a")).isTrue();
        assertThat(queue.remove("a")).isTrue();
        assertThat(queue.readAll()).containsExactly("b", "a", "c");
        assertThat(queue.removeAll(List.of("a", "c"))).isTrue();
        assertThat(queue.containsAll(List.of("b", "b"))).isTrue();
        assertThat(queue.retainAll(List.of("q"))).isTrue();
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void integerAndLongValuesStayDistinct() {
        RBlockingQueue<Object> queue = queue("numbers");
        RDelayedQueue<Object> delayed = client.getDelayedQueue(queue);
        delayed.offer(1, u, MILLISECONDS);
        delayed.offer(1L, u, MILLISECONDS);

        assertThat(delayed.contains(1)).isTrue();
        assertThat(delayed.contains(1L)).isTrue();
        assertThat(delayed.contains((short) 1)).isFalse();
        assertThat(delayed.remove(1L)).isTrue();
        assertThat(delayed.contains(1L)).isFalse();
        assertThat(delayed.readAll()).containsExactly(1);
        assertThat(delayed.peek()).isInstanceOf(Integer.class);

        delayed.offer(2L, 0, MILLISECONDS);
        assertThat(queue.poll()).isInstanceOf(Long.class).isEqualTo(2L);
    }

    @Test
    void valueTheCodecCannotEncodeIsRefusedAndNothingIsStored() {
        RBlockingQueue<Object> queue = queue("objects");
        RDelayedQueue<Object> delayed = client.getDelayedQueue(queue);
        Object unencodable = new Object();

        assertThatThrownBy(() -> delayed.offer(unencodable, u, MILLISECONDS)).isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> queue.offer(unencodable)).isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> queue.addAll(List.of("fine", unencodable))).isInstanceOf(CodecException.class);
        assertThat(delayed.size()).isZero();
        assertThat(queue.size()).as("a batch with an unencodable value stores none of it").isZero();
        assertThat(delayed.contains(unencodable)).as("a value that cannot be encoded is in no queue").isFalse();
        assertThat(queue.remove(unencodable)).isFalse();
    }

    @Test
    void queueWithItsOwnCodecComparesByItsBytes() {
        RBlockingQueue<String> queue = client.getBlockingQueue("strings", Codec.string());
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("é", u, MILLISECONDS);
        assertThat(delayed.contains("é")).isTrue();
        elapse(1.5);
        assertThat(client.getBlockingQueue("strings", Codec.string()).poll()).isEqualTo("é");
    }

    @Test
    void twoHandlesOnOneNameSeeTheSameElements() {
        RBlockingQueue<String> first = queue("shared");
        RBlockingQueue<String> second = queue("shared");
        RDelayedQueue<String> delayed1 = client.getDelayedQueue(first);
        RDelayedQueue<String> delayed2 = client.getDelayedQueue(second);

        delayed1.offer("a", u, MILLISECONDS);
        delayed2.offer("b", 2 * u, MILLISECONDS);
        assertThat(delayed2.readAll()).containsExactly("a", "b");
        assertThat(delayed1.remove("b")).isTrue();
        assertThat(delayed2.readAll()).containsExactly("a");
        assertThat(delayed2.getName()).isEqualTo(delayed1.getName());

        elapse(1.5);
        assertThat(second.poll()).isEqualTo("a");
        assertThat(first.isEmpty()).isTrue();
        assertThat(client.<String>getQueue("shared").isEmpty()).isTrue();
    }

    // ---- clear, delete, size, iteration ----

    @Test
    void clearedElementsNeverArrive() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("a", u, MILLISECONDS);
        delayed.offer("b", 2 * u, MILLISECONDS);

        delayed.clear();
        assertThat(delayed.isEmpty()).isTrue();
        elapse(2.5);
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void deleteReportsWhetherThereWasAnythingToDelete() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        assertThat(delayed.delete()).isFalse();
        assertThat(queue.delete()).isFalse();

        delayed.offer("pending", 5 * u, MILLISECONDS);
        queue.offer("due");
        assertThat(queue.delete()).isTrue();
        assertThat(queue.isEmpty()).isTrue();
        assertThat(delayed.readAll()).as("the destination's delete leaves the pending elements")
                .containsExactly("pending");
        assertThat(delayed.delete()).isTrue();
        assertThat(delayed.isEmpty()).isTrue();
        assertThat(delayed.delete()).isFalse();
        queue.offer("again");
        queue.clear();
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void sizeAndIsEmptyOfBothViewsFollowTheElements() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        assertThat(delayed.size()).isZero();
        assertThat(delayed.isEmpty()).isTrue();

        delayed.offer("a", u, MILLISECONDS);
        delayed.offer("b", 2 * u, MILLISECONDS);
        assertThat(delayed.size()).isEqualTo(2);
        assertThat(queue.size()).isZero();
        assertThat(queue.isEmpty()).isTrue();

        elapse(1.5);
        assertThat(delayed.size()).isOne();
        assertThat(queue.size()).isOne();

        elapse(1);
        assertThat(delayed.size()).isZero();
        assertThat(delayed.isEmpty()).isTrue();
        assertThat(queue.size()).isEqualTo(2);
        assertThat(queue.isEmpty()).isFalse();
    }

    @Test
    void iteratorWalksInOfferOrderAndRemovesTheElementItReturned() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("a", 3 * u, MILLISECONDS);
        delayed.offer("b", u, MILLISECONDS);
        delayed.offer("c", 2 * u, MILLISECONDS);

        Iterator<String> it = delayed.iterator();
        assertThatThrownBy(it::remove).as("remove before next").isInstanceOf(IllegalStateException.class);
        assertThat(it.next()).isEqualTo("a");
        assertThat(it.next()).isEqualTo("b");
        it.remove();
        assertThatThrownBy(it::remove).as("remove twice").isInstanceOf(IllegalStateException.class);
        assertThat(it.next()).isEqualTo("c");
        assertThat(it.hasNext()).isFalse();
        assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);
        assertThat(delayed.readAll()).containsExactly("a", "c");

        elapse(3.5);
        assertThat(queue.readAll()).as("the removed element never arrives").containsExactly("c", "a");
        Iterator<String> due = queue.iterator();
        assertThat(due.next()).isEqualTo("c");
        due.remove();
        assertThat(queue.readAll()).containsExactly("a");
    }

    @Test
    void toArrayListsBothViewsInTheirOrder() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("a", 2 * u, MILLISECONDS);
        delayed.offer("b", u, MILLISECONDS);

        assertThat(delayed.toArray()).containsExactly("a", "b");
        assertThat(delayed.toArray(new String[0])).containsExactly("a", "b");
        elapse(2.5);
        assertThat(queue.toArray()).containsExactly("b", "a");
        assertThat(queue.toArray(new String[0])).containsExactly("b", "a");
    }

    @Test
    void pollAndPeekOfAnEmptyDelayedQueueReturnNullAndRemoveFails() {
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue("test"));
        assertThat(delayed.peek()).isNull();
        assertThat(delayed.poll()).isNull();
        assertThat(delayed.pollLastAndOfferFirstTo("other")).isNull();
        assertThatThrownBy(delayed::remove).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(delayed::element).isInstanceOf(NoSuchElementException.class);
        delayed.offer("a", u, MILLISECONDS);
        assertThat(delayed.element()).isEqualTo("a");
        assertThat(delayed.remove()).isEqualTo("a");
    }

    // ---- refusals ----

    @Test
    void plainAddAndOfferOnTheDelayedQueueAreRefused() {
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue("test"));

        assertThatThrownBy(() -> delayed.add("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> delayed.offer("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> delayed.addAll(List.of("a"))).isInstanceOf(UnsupportedOperationException.class);
        assertThat(delayed.isEmpty()).isTrue();
    }

    @Test
    void nullArgumentsAreRefusedNamingTheArgumentAndChangeNothing() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("pending", u, MILLISECONDS);
        queue.offer("due");

        assertThatThrownBy(() -> delayed.offer(null, u, MILLISECONDS)).isInstanceOf(NullPointerException.class)
                .hasMessage("e");
        assertThatThrownBy(() -> delayed.offer("x", u, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("timeUnit");
        assertThatThrownBy(() -> queue.offer(null)).isInstanceOf(NullPointerException.class).hasMessage("e");
        assertThatThrownBy(() -> queue.put(null)).isInstanceOf(NullPointerException.class).hasMessage("e");
        assertThatThrownBy(() -> queue.offer("x", 1, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("unit");
        assertThatThrownBy(() -> queue.poll(1, null)).isInstanceOf(NullPointerException.class).hasMessage("unit");
        assertThatThrownBy(() -> queue.addAll(Arrays.asList("x", null))).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> delayed.contains(null)).isInstanceOf(NullPointerException.class).hasMessage("o");
        assertThatThrownBy(() -> delayed.remove(null)).isInstanceOf(NullPointerException.class).hasMessage("o");
        assertThatThrownBy(() -> delayed.removeAll(null)).isInstanceOf(NullPointerException.class).hasMessage("c");
        assertThatThrownBy(() -> delayed.retainAll(null)).isInstanceOf(NullPointerException.class).hasMessage("c");
        assertThatThrownBy(() -> delayed.containsAll(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("c");
        assertThatThrownBy(() -> delayed.pollLastAndOfferFirstTo(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("queueName");
        assertThatThrownBy(() -> queue.drainTo(null)).isInstanceOf(NullPointerException.class).hasMessage("c");
        assertThatThrownBy(() -> client.getBlockingQueue(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("name");
        assertThatThrownBy(() -> client.getQueue("q", null)).isInstanceOf(NullPointerException.class)
                .hasMessage("codec");
        assertThatThrownBy(() -> client.getDelayedQueue(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("destinationQueue");

        assertThat(delayed.readAll()).containsExactly("pending");
        assertThat(queue.readAll()).containsExactly("due");
    }

    @Test
    void badArgumentsAreRefusedNamingTheArgumentAndChangeNothing() {
        RBlockingQueue<String> queue = queue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("pending", u, MILLISECONDS);
        queue.offer("due");

        assertThatThrownBy(() -> delayed.poll(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> queue.poll(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> queue.drainTo(queue)).isInstanceOf(IllegalArgumentException.class);
        assertThat(queue.drainTo(new ArrayList<>(), 0)).isZero();

        assertThat(delayed.readAll()).containsExactly("pending");
        assertThat(queue.readAll()).containsExactly("due");
    }

    // ---- the blocking deque as a destination ----

    /** Redisson's delayed-queue tests with {@code getBlockingDeque} as the destination, as users write them. */
    @Test
    void blockingDequeReceivesDelayedElementsInDueOrder() throws Exception {
        RBlockingDeque<String> deque = client.getBlockingDeque("orders");
        RDelayedQueue<String> delayed = client.getDelayedQueue(deque);
        delayed.offer("2", 2 * u, MILLISECONDS);
        delayed.offer("1", u, MILLISECONDS);
        delayed.offer("3", 3 * u, MILLISECONDS);

        elapse(0.5);
        assertThat(deque.isEmpty()).isTrue();
        elapse(2);
        assertThat(deque).containsExactly("1", "2");
        assertThat(delayed).containsExactly("3");
        assertThat(deque.takeFirst()).isEqualTo("1");
        assertThat(deque.take()).isEqualTo("2");

        Future<String> taken = blockedInBackground(deque::takeLast);
        elapse(1);
        assertThat(outcome(taken)).isEqualTo("3");
        assertThat(deque.isEmpty()).isTrue();
        assertThat(delayed.isEmpty()).isTrue();
    }

    @Test
    void dequeInsertsAndRemovesAtBothEnds() {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");
        assertThat(deque.offerLast("b")).isTrue();
        assertThat(deque.offerFirst("a")).isTrue();
        deque.addLast("c");
        deque.addFirst("z");
        deque.push("y");
        deque.add("d");
        assertThat(deque.offer("e")).isTrue();
        assertThat(deque.readAll()).containsExactly("y", "z", "a", "b", "c", "d", "e");

        assertThat(deque.peekFirst()).isEqualTo("y");
        assertThat(deque.getFirst()).isEqualTo("y");
        assertThat(deque.element()).isEqualTo("y");
        assertThat(deque.peekLast()).isEqualTo("e");
        assertThat(deque.getLast()).isEqualTo("e");
        assertThat(deque.size()).as("peeks take nothing").isEqualTo(7);

        assertThat(deque.pop()).isEqualTo("y");
        assertThat(deque.removeFirst()).isEqualTo("z");
        assertThat(deque.removeLast()).isEqualTo("e");
        assertThat(deque.pollFirst()).isEqualTo("a");
        assertThat(deque.pollLast()).isEqualTo("d");
        assertThat(deque.readAll()).containsExactly("b", "c");
    }

    @Test
    void dequeBlockingInsertsNeverWait() throws Exception {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");
        deque.putFirst("b");
        deque.putLast("c");
        assertThat(deque.offerFirst("a", 1, TimeUnit.DAYS)).isTrue();
        assertThat(deque.offerLast("d", 1, TimeUnit.DAYS)).isTrue();
        deque.put("e");
        assertThat(deque.readAll()).containsExactly("a", "b", "c", "d", "e");
        assertThat(deque.remainingCapacity()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void elementsFallingDueJoinTheTailBehindElementsOfferedFirst() {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(deque);
        delayed.offer("due", u, MILLISECONDS);
        deque.offerFirst("first");
        deque.offerLast("last");

        elapse(1.5);
        assertThat(deque.readAll()).containsExactly("first", "last", "due");
        deque.offerFirst("newest first");
        assertThat(deque.peekFirst()).isEqualTo("newest first");
        assertThat(deque.peekLast()).isEqualTo("due");
    }

    @Test
    void emptyDequeAnswersNullOrThrowsByTheDequeContract() throws Exception {
        RBlockingDeque<String> deque = client.getBlockingDeque("empty");
        assertThat(deque.pollFirst()).isNull();
        assertThat(deque.pollLast()).isNull();
        assertThat(deque.peekFirst()).isNull();
        assertThat(deque.peekLast()).isNull();
        assertThat(deque.pollFirst(3)).isEmpty();
        assertThat(deque.pollLast(3)).isEmpty();
        assertThat(deque.pollFirst(0, MILLISECONDS)).isNull();
        assertThat(deque.pollLast(0, MILLISECONDS)).isNull();
        assertThatThrownBy(deque::removeFirst).isInstanceOf(NoSuchElementException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(deque::removeLast).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(deque::getFirst).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(deque::getLast).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(deque::pop).isInstanceOf(NoSuchElementException.class);
        assertThat(deque.removeFirstOccurrence("x")).isFalse();
        assertThat(deque.removeLastOccurrence("x")).isFalse();
        assertThat(deque.descendingIterator().hasNext()).isFalse();
    }

    @Test
    void pollFirstAndPollLastWithALimitTakeFromEachEnd() {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");
        deque.addAll(List.of("a", "b", "c", "d", "e"));

        assertThat(deque.pollLast(2)).containsExactly("e", "d");
        assertThat(deque.pollFirst(2)).containsExactly("a", "b");
        assertThat(deque.pollLast(5)).containsExactly("c");
        assertThat(deque.isEmpty()).isTrue();
        assertThatThrownBy(() -> deque.pollLast(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> deque.pollFirst(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
    }

    @Test
    void removeFirstAndLastOccurrenceTakeTheCopyNearestEachEnd() {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");
        deque.offerLast("b");
        deque.offerLast("a");
        deque.offerLast("c");
        deque.offerFirst("a");
        assertThat(deque.readAll()).containsExactly("a", "b", "a", "c");

        assertThat(deque.removeFirstOccurrence("a")).isTrue();
        assertThat(deque.readAll()).as("the copy offered first, at the head").containsExactly("b", "a", "c");

        deque.offerFirst("a");
        deque.offerLast("b");
        assertThat(deque.readAll()).containsExactly("a", "b", "a", "c", "b");
        assertThat(deque.removeLastOccurrence("a")).isTrue();
        assertThat(deque.readAll()).containsExactly("a", "b", "c", "b");
        assertThat(deque.removeLastOccurrence("b")).isTrue();
        assertThat(deque.readAll()).containsExactly("a", "b", "c");
        assertThat(deque.removeLastOccurrence("q")).isFalse();
        assertThat(deque.removeLastOccurrence(new Object())).as("a value no codec takes is in no deque").isFalse();
        assertThat(deque.readAll()).containsExactly("a", "b", "c");
    }

    @Test
    void descendingIteratorWalksTailFirstAndRemovesTheElementItReturned() {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");
        deque.addAll(List.of("a", "b", "a", "c"));

        List<String> seen = new ArrayList<>();
        Iterator<String> it = deque.descendingIterator();
        assertThatThrownBy(it::remove).isInstanceOf(IllegalStateException.class);
        while (it.hasNext()) {
            String v = it.next();
            seen.add(v);
            if (v.equals("a")) {
                it.remove();
                assertThatThrownBy(it::remove).isInstanceOf(IllegalStateException.class);
                break;
            }
        }
        assertThat(seen).containsExactly("c", "a");
        assertThat(deque.readAll()).as("the last copy of a went").containsExactly("a", "b", "c");
        assertThatThrownBy(() -> {
            Iterator<String> done = deque.descendingIterator();
            while (true) {
                done.next();
            }
        }).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void blockedTakeLastWakesForAnElementOfferedAtEitherEnd() throws Exception {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");

        Future<String> last = blockedInBackground(deque::takeLast);
        client.<String>getBlockingDeque("test").offerFirst("x");
        assertThat(outcome(last)).isEqualTo("x");

        Future<String> first = blockedInBackground(deque::takeFirst);
        client.<String>getBlockingDeque("test").offerLast("y");
        assertThat(outcome(first)).isEqualTo("y");
    }

    @Test
    void timedPollFirstAndPollLastWaitForADueElementOrTheirTimeout() throws Exception {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(deque);
        deque.offer("head");
        delayed.offer("x", u, MILLISECONDS);

        assertThat(deque.pollLast(0, MILLISECONDS)).isEqualTo("head");
        Future<String> polledLast = blockedInBackground(() -> deque.pollLast(10 * u, MILLISECONDS));
        elapse(1.5);
        assertThat(outcome(polledLast)).isEqualTo("x");

        delayed.offer("later", 3 * u, MILLISECONDS);
        Future<String> polledFirst = blockedInBackground(() -> deque.pollFirst(u, MILLISECONDS));
        elapse(1.5);
        assertThat(outcome(polledFirst)).isNull();
        assertThat(delayed.readAll()).as("the element stays pending").containsExactly("later");
    }

    @Test
    void queueAndDequeOfOneNameAreTheSameElements() {
        RBlockingQueue<String> queue = queue("shared");
        RDeque<String> deque = client.getDeque("shared");
        queue.offer("a");
        deque.offerFirst("z");
        assertThat(queue.readAll()).containsExactly("z", "a");
        assertThat(client.<String>getBlockingDeque("shared").pollLast()).isEqualTo("a");
        assertThat(queue.poll()).isEqualTo("z");
        assertThat(deque.getName()).isEqualTo("shared");

        RDeque<String> typed = client.getDeque("typed", Codec.string());
        typed.offerLast("é");
        assertThat(client.getBlockingDeque("typed", Codec.string()).peekLast()).isEqualTo("é");
    }

    @Test
    void dequeRefusesNullsAndBadArgumentsNamingThem() {
        RBlockingDeque<String> deque = client.getBlockingDeque("test");
        deque.offer("kept");
        assertThatThrownBy(() -> deque.offerFirst(null)).isInstanceOf(NullPointerException.class).hasMessage("e");
        assertThatThrownBy(() -> deque.offerLast(null)).isInstanceOf(NullPointerException.class).hasMessage("e");
        assertThatThrownBy(() -> deque.addFirst(null)).isInstanceOf(NullPointerException.class).hasMessage("e");
        assertThatThrownBy(() -> deque.push(null)).isInstanceOf(NullPointerException.class).hasMessage("e");
        assertThatThrownBy(() -> deque.putLast(null)).isInstanceOf(NullPointerException.class).hasMessage("e");
        assertThatThrownBy(() -> deque.offerFirst("x", 1, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("unit");
        assertThatThrownBy(() -> deque.pollLast(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("unit");
        assertThatThrownBy(() -> deque.removeLastOccurrence(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("o");
        assertThatThrownBy(() -> client.getBlockingDeque(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("name");
        assertThatThrownBy(() -> client.getDeque("q", null)).isInstanceOf(NullPointerException.class)
                .hasMessage("codec");
        assertThat(deque.readAll()).containsExactly("kept");
    }

    @Test
    void shutdownClientFailsEveryDequeHandle() {
        RBlockingDeque<String> deque = client.getBlockingDeque("orders");
        client.shutdown();
        assertThatThrownBy(() -> deque.offerFirst("a")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(deque::pollLast).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(deque::takeLast).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.getBlockingDeque("orders")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void namesThatDoNotRoundTripThroughUtf8AreRefusedNamingTheNameAndShareNothing() {
        RBlockingQueue<String> plain = queue("sur?");
        plain.offer("only in sur?");
        // Encoders write '?' for a lone surrogate: as bytes, each of these names would be "sur?".
        for (String bad : List.of("sur\uD800", "sur\uDBFF", "sur\uDC00", "\uDFFFsur")) {
            assertThatThrownBy(() -> client.getBlockingQueue(bad)).as("getBlockingQueue(%s)", codePoints(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("name must be well-formed Unicode").hasMessageContaining("surrogate");
            assertThatThrownBy(() -> client.getQueue(bad, Codec.string())).as("getQueue(%s)", codePoints(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("name ");
            assertThatThrownBy(() -> client.getBlockingDeque(bad)).as("getBlockingDeque(%s)", codePoints(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("name ");
        }
        assertThat(plain.readAll()).containsExactly("only in sur?");
        RBlockingQueue<String> pair = queue("sur\uD83D\uDE00");
        assertThat(pair.readAll()).as("a surrogate pair is well-formed: its own queue").isEmpty();
    }

    private static List<String> codePoints(String s) {
        return s.chars().mapToObj(Integer::toHexString).toList();
    }

    // ---- life cycle ----

    @Test
    void destroyedHandleFailsNamingTheQueueWhilePendingElementsStillArrive() {
        RBlockingQueue<String> queue = queue("orders");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("a", u, MILLISECONDS);

        delayed.destroy();
        delayed.destroy();
        assertThatThrownBy(() -> delayed.offer("b", u, MILLISECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("orders");
        assertThatThrownBy(delayed::size).isInstanceOf(IllegalStateException.class).hasMessageContaining("orders");
        assertThatThrownBy(delayed::readAll).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("orders");
        assertThatThrownBy(delayed::poll).isInstanceOf(IllegalStateException.class).hasMessageContaining("orders");

        RDelayedQueue<String> again = client.getDelayedQueue(queue);
        assertThat(again.readAll()).as("a new handle sees what is pending").containsExactly("a");
        elapse(1.5);
        assertThat(queue.poll()).as("no client task is needed for an element to arrive").isEqualTo("a");
    }

    @Test
    void shutdownClientFailsEveryHandle() {
        RBlockingQueue<String> queue = queue("orders");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("a", u, MILLISECONDS);
        assertThat(client.isShutdown()).isFalse();

        client.shutdown();
        client.shutdown();
        assertThat(client.isShutdown()).isTrue();
        assertThatThrownBy(() -> queue.offer("b")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(queue::poll).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(queue::take).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(delayed::readAll).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> delayed.offer("c", u, MILLISECONDS)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.getBlockingQueue("orders")).isInstanceOf(IllegalStateException.class);
    }
}
