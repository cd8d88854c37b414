package io.clockwork.testing.queue;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The behaviour every {@link DelayedQueue} backend must show, written once and run against each: a backend's test
 * extends this class and supplies a fresh queue and a way to let the backend's clock move.
 *
 * <p>Shipped in clockwork-core's test-jar so that clockwork-redis runs the same tests against a real Redis.
 *
 * <p>The tests never sleep. Where time must pass they call {@link #passTime}; where a consumer must block they poll
 * with a wait from a background thread. Delays are short ({@link #SOON}, {@link #LATER}) so that a real-time backend
 * runs the whole contract in seconds, and {@link #FAR} marks a message that must not fall due during a test.
 */
public abstract class DelayedQueueContract extends QueueContractBase {

    /** A short delay. */
    protected static final Duration SOON = Duration.ofMillis(100);
    /** A delay, or visibility timeout, that a test step on a real clock does not reach by accident. */
    protected static final Duration LATER = Duration.ofMillis(300);
    /** A delay that never passes during a test. */
    protected static final Duration FAR = Duration.ofHours(1);
    /** How long a test waits, in real time, for a background poll before it fails. */
    private static final Duration REAL_TIME_LIMIT = Duration.ofSeconds(20);

    // ---- helpers ----

    private DelayedQueue<String> queue() {
        return newQueue(Codec.string(), options -> { });
    }

    private DelayedQueue<String> queue(Consumer<DelayedQueueBuilder<String, ?>> options) {
        return newQueue(Codec.string(), options);
    }

    /** Polls without blocking and insists on a delivery. */
    private static Delivery<String> take(DelayedQueue<String> q) throws InterruptedException {
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d).as("a delivery from %s", q.name()).isNotNull();
        return d;
    }

    /** Polls without blocking until nothing is ready, acking nothing. */
    private static List<Delivery<String>> drain(DelayedQueue<String> q) throws InterruptedException {
        List<Delivery<String>> all = new ArrayList<>();
        for (Delivery<String> d = q.poll(Duration.ZERO); d != null; d = q.poll(Duration.ZERO)) {
            all.add(d);
        }
        return all;
    }

    private static List<String> values(List<Delivery<String>> deliveries) {
        return deliveries.stream().map(Delivery::value).toList();
    }

    private <T> Future<T> inBackground(Callable<T> task) {
        return background.submit(task);
    }

    /**
     * Lets time pass in steps of {@code step} until the background task completes: on a manual clock each step
     * moves time, so the task's wait ends whenever it began; on a real clock the steps just wait.
     */
    private <T> T passTimeUntilDone(Future<T> task, Duration step) throws Exception {
        long deadline = System.nanoTime() + REAL_TIME_LIMIT.toNanos();
        while (true) {
            try {
                return task.get(10, TimeUnit.MILLISECONDS);
            } catch (TimeoutException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    fail("background task still running after " + REAL_TIME_LIMIT);
                }
                passTime(step);
            }
        }
    }

    private static QueueStats counts(long delayed, long ready, long inFlight, long dead) {
        return new QueueStats(delayed, ready, inFlight, dead, Optional.empty());
    }

    /** The counts of a stats snapshot, with {@code nextDueIn} left out for comparison. */
    private static QueueStats countsOf(DelayedQueue<?> q) {
        QueueStats s = q.stats();
        return counts(s.delayed(), s.ready(), s.inFlight(), s.dead());
    }

    /**
     * UTF-8 strings, except that {@code "poison"} encodes but cannot be decoded and {@code "unencodable"} cannot be
     * encoded.
     */
    static final class FussyCodec implements Codec<String> {
        @Override
        public byte[] encode(String value) {
            if (value.equals("unencodable")) {
                throw new IllegalArgumentException("FussyCodec will not encode 'unencodable'");
            }
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            String value = new String(bytes, StandardCharsets.UTF_8);
            if (value.equals("poison")) {
                throw new IllegalStateException("poison pill refused");
            }
            return value;
        }

        @Override
        public String toString() {
            return "FussyCodec";
        }
    }

    // ---- offer and identity ----

    @Test
    void offerReturnsDistinctIds() {
        DelayedQueue<String> q = queue();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            String id = q.offer("v" + i, Duration.ZERO);
            assertThat(id).isNotEmpty();
            assertThat(id.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(DelayedQueue.MAX_ID_BYTES);
            ids.add(id);
        }
        assertThat(ids).hasSize(100);
        assertThat(countsOf(q)).isEqualTo(counts(0, 100, 0, 0));
    }

    @Test
    void offerWithOwnIdDeduplicatesWhileDelayedReadyInFlightOrDead() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        assertThat(q.offer("order-42", "first", SOON)).isTrue();
        assertThat(q.offer("order-42", "second", Duration.ZERO)).as("delayed").isFalse();
        assertThat(countsOf(q)).as("the duplicate changed nothing").isEqualTo(counts(1, 0, 0, 0));

        passTime(SOON);
        assertThat(q.offer("order-42", "third", Duration.ZERO)).as("ready").isFalse();
        Delivery<String> d = take(q);
        assertThat(d.id()).isEqualTo("order-42");
        assertThat(d.value()).isEqualTo("first");
        assertThat(q.offer("order-42", "fourth", Duration.ZERO)).as("in flight").isFalse();

        assertThat(d.nack(Duration.ZERO)).isTrue(); // its only attempt: now dead
        assertThat(q.offer("order-42", "fifth", Duration.ZERO)).as("dead").isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 1));

        assertThat(q.purgeDead()).isOne();
        assertThat(q.offer("order-42", "sixth", Duration.ZERO)).as("gone: the id is free again").isTrue();
        assertThat(take(q).value()).isEqualTo("sixth");
    }

    @Test
    void offerWithTimeUnitDelaysLikeDuration() throws Exception {
        DelayedQueue<String> q = queue();
        String id = q.offer("t", LATER.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 0));
        passTime(LATER);
        Delivery<String> d = take(q);
        assertThat(d.id()).isEqualTo(id);
        assertThat(d.value()).isEqualTo("t");
    }

    // ---- timing and order ----

    @Test
    void messageIsNotDeliveredBeforeItsDelayAndIsAfter() throws Exception {
        DelayedQueue<String> q = queue();
        String id = q.offer("hello", LATER);
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 0));

        passTime(LATER);
        Delivery<String> d = take(q);
        assertThat(d.id()).isEqualTo(id);
        assertThat(d.value()).isEqualTo("hello");
        assertThat(d.attempt()).isOne();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 1, 0));
        assertThat(q.poll(Duration.ZERO)).as("delivered once").isNull();
    }

    @Test
    void messagesDueAtOneTimeAreDeliveredInOfferOrder() throws Exception {
        DelayedQueue<String> q = queue();
        List<String> offered = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            offered.add("m" + i);
            q.offer("m" + i, SOON);
        }
        passTime(SOON);
        assertThat(values(drain(q))).containsExactlyElementsOf(offered);
    }

    @Test
    void readyMessagesAreDeliveredByDueTime() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("third", LATER);
        q.offer("first", SOON);
        q.offer("second", SOON.plus(SOON));
        passTime(LATER);
        assertThat(values(drain(q))).containsExactly("first", "second", "third");
    }

    @Test
    void negativeDelayMeansDueNow() throws Exception {
        DelayedQueue<String> q = queue();
        String id = q.offer("past", Duration.ofSeconds(-5));
        q.offer("also past", -5, TimeUnit.SECONDS);
        assertThat(values(drain(q))).containsExactly("past", "also past");
        assertThat(q.reschedule(id, Duration.ofMillis(-1))).as("in flight").isFalse();
    }

    @Test
    void hugeNegativeDelayInTimeUnitsMeansDueNow() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("days", Long.MIN_VALUE, TimeUnit.DAYS);
        q.offer("millis", Long.MIN_VALUE, TimeUnit.MILLISECONDS);
        q.offer("nanos", Long.MIN_VALUE, TimeUnit.NANOSECONDS);
        assertThat(values(drain(q))).containsExactly("days", "millis", "nanos");
    }

    // ---- cancel and reschedule ----

    @Test
    void cancelRemovesAMessageOnce() throws Exception {
        DelayedQueue<String> q = queue();
        String delayed = q.offer("delayed", SOON);
        String ready = q.offer("ready", Duration.ZERO);
        assertThat(q.cancel(delayed)).isTrue();
        assertThat(q.cancel(delayed)).isFalse();
        assertThat(q.cancel(ready)).isTrue();
        assertThat(q.cancel("no-such-id")).isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
        passTime(SOON);
        assertThat(q.poll(Duration.ZERO)).as("cancelled messages never come").isNull();
    }

    @Test
    void cancelOfAnInFlightMessageMakesItsAckStale() throws Exception {
        DelayedQueue<String> q = queue();
        String id = q.offer("x", Duration.ZERO);
        Delivery<String> d = take(q);
        assertThat(q.cancel(id)).isTrue();
        assertThat(d.ack()).isFalse();
        assertThat(d.nack(Duration.ZERO)).isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));

        String acked = q.offer("y", Duration.ZERO);
        assertThat(take(q).ack()).isTrue();
        assertThat(q.cancel(acked)).as("acked").isFalse();
    }

    @Test
    void rescheduleMovesAMessageEarlierOrLater() throws Exception {
        DelayedQueue<String> q = queue();
        String far = q.offer("far", FAR);
        assertThat(q.reschedule(far, Duration.ZERO)).isTrue();
        Delivery<String> d = take(q);
        assertThat(d.value()).isEqualTo("far");
        assertThat(q.reschedule(far, Duration.ZERO)).as("in flight").isFalse();

        String now = q.offer("now", Duration.ZERO);
        assertThat(q.reschedule(now, LATER)).isTrue();
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 1, 0));
        passTime(LATER);
        assertThat(take(q).value()).isEqualTo("now");

        assertThat(q.reschedule("no-such-id", Duration.ZERO)).isFalse();
        assertThat(d.ack()).isTrue();
        assertThat(q.reschedule(far, Duration.ZERO)).as("acked").isFalse();
    }

    @Test
    void rescheduledMessageTakesItsPlaceByItsNewDueTime() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("a", SOON);
        String b = q.offer("b", LATER);
        assertThat(q.reschedule(b, Duration.ZERO)).isTrue();
        passTime(SOON);
        assertThat(values(drain(q))).containsExactly("b", "a");
    }

    // ---- acknowledgement, redelivery, dead letters ----

    @Test
    void ackRemovesTheMessageForGood() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(LATER));
        assertThat(q.offer("job-1", "work", Duration.ZERO)).isTrue();
        Delivery<String> d = take(q);
        assertThat(d.ack()).isTrue();
        assertThat(d.ack()).as("second ack").isFalse();
        assertThat(d.nack(Duration.ZERO)).as("nack after ack").isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
        passTime(LATER);
        assertThat(q.poll(Duration.ZERO)).as("no redelivery after ack").isNull();
        assertThat(q.offer("job-1", "again", Duration.ZERO)).as("the id is free again").isTrue();
    }

    @Test
    void unackedMessageIsRedeliveredAfterTheVisibilityTimeout() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(LATER));
        String id = q.offer("v", Duration.ZERO);
        Delivery<String> first = take(q);
        assertThat(first.attempt()).isOne();
        assertThat(q.poll(Duration.ZERO)).as("invisible while in flight").isNull();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 1, 0));

        passTime(LATER);
        Delivery<String> second = take(q);
        assertThat(second.id()).isEqualTo(id);
        assertThat(second.value()).isEqualTo("v");
        assertThat(second.attempt()).isEqualTo(2);

        assertThat(first.ack()).as("stale receipt").isFalse();
        assertThat(first.nack(Duration.ZERO)).as("stale receipt").isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 1, 0));
        assertThat(second.ack()).isTrue();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
    }

    @Test
    void nackRedeliversAfterTheRetryDelay() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("retry me", Duration.ZERO);
        Delivery<String> first = take(q);
        assertThat(first.nack(LATER)).isTrue();
        assertThat(first.nack(Duration.ZERO)).as("second nack").isFalse();
        assertThat(first.ack()).as("ack after nack").isFalse();
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 0));

        passTime(LATER);
        Delivery<String> second = take(q);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.nack(Duration.ofMillis(-1))).as("negative retry delay: due now").isTrue();
        assertThat(take(q).attempt()).isEqualTo(3);
    }

    @Test
    void messageDeliveredMaxAttemptsTimesGoesToDeadLetters() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(2).visibilityTimeout(LATER));
        String id = q.offer("doomed", Duration.ZERO);
        assertThat(take(q).attempt()).isOne();
        passTime(LATER);
        Delivery<String> last = take(q);
        assertThat(last.attempt()).isEqualTo(2);
        passTime(LATER);
        assertThat(q.poll(Duration.ZERO)).as("a third delivery would exceed maxAttempts").isNull();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 1));

        List<DeadLetter> dead = q.deadLetters(10);
        assertThat(dead).hasSize(1);
        DeadLetter letter = dead.get(0);
        assertThat(letter.id()).isEqualTo(id);
        assertThat(letter.payload()).isEqualTo("doomed".getBytes(StandardCharsets.UTF_8));
        assertThat(letter.attempts()).isEqualTo(2);
        assertThat(letter.reason()).contains("maxAttempts");

        assertThat(last.ack()).as("dead: the receipt is stale").isFalse();
        assertThat(q.cancel(id)).as("dead letters are not cancelled").isFalse();
        assertThat(q.reschedule(id, Duration.ZERO)).as("nor rescheduled").isFalse();
    }

    @Test
    void nackOnTheLastAttemptKillsTheMessage() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        String id = q.offer("once", Duration.ZERO);
        assertThat(take(q).nack(Duration.ZERO)).isTrue();
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 1));
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.id()).isEqualTo(id);
        assertThat(letter.attempts()).isOne();
        assertThat(letter.reason()).contains("maxAttempts");
    }

    // ---- cumulative event counters ----

    private static QueueCounters countersOf(DelayedQueue<?> q) {
        return q.counters().orElseThrow(() -> new AssertionError("no counters from " + q.name()));
    }

    @Test
    void countersCountOffersDeliveriesAcksAndRetries() throws Exception {
        DelayedQueue<String> q = queue();
        assertThat(countersOf(q)).isEqualTo(QueueCounters.ZERO);
        q.offer("a", Duration.ZERO);
        q.offer("b", Duration.ZERO);
        assertThat(q.offer("fixed-id", "c", FAR)).isTrue();
        assertThat(q.offer("fixed-id", "c again", FAR)).as("kept: stores nothing").isFalse();
        Delivery<String> first = take(q);
        Delivery<String> second = take(q);
        assertThat(first.ack()).isTrue();
        assertThat(first.ack()).as("a second ack deletes nothing").isFalse();
        assertThat(second.nack(FAR)).isTrue();
        assertThat(q.cancel("fixed-id")).as("cancels are not counted").isTrue();
        assertThat(countersOf(q)).isEqualTo(new QueueCounters(3, 2, 1, 1, 0));
    }

    @Test
    void countersCountDeadLettersOfNacksAndDeadLetterCalls() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        q.offer("nacked", Duration.ZERO);
        q.offer("refused", Duration.ZERO);
        q.offer("fine", Duration.ZERO);
        assertThat(take(q).nack(Duration.ZERO)).as("its last attempt: dies").isTrue();
        assertThat(take(q).deadLetter("bad")).isTrue();
        assertThat(take(q).ack()).isTrue();
        assertThat(countersOf(q)).isEqualTo(new QueueCounters(3, 3, 1, 0, 2));
        assertThat(q.requeueDead(q.deadLetters(1).get(0).id())).isTrue();
        assertThat(countersOf(q)).as("a requeue is not an offer").isEqualTo(new QueueCounters(3, 3, 1, 0, 2));
    }

    @Test
    void countersCountExpiredDeliveriesAsRetriedThenDead() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(2).visibilityTimeout(LATER));
        q.offer("slow", Duration.ZERO);
        take(q);
        passTime(LATER);
        take(q); // the expired delivery came back: retried
        passTime(LATER);
        assertThat(q.poll(Duration.ZERO)).as("its attempts are used up").isNull();
        assertThat(q.stats().dead()).isOne(); // on Redis an expiry is handled (and counted) by the next sweep
        assertThat(countersOf(q)).isEqualTo(new QueueCounters(1, 2, 0, 1, 1));
    }

    // ---- what a worker needs of a delivery: extend, release, dead-letter, nack with a reason ----

    @Test
    void extendKeepsADeliveryInFlightPastItsVisibilityTimeout() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(LATER));
        String id = q.offer("long job", Duration.ZERO);
        Delivery<String> d = take(q);
        assertThat(d.extend(Duration.ofSeconds(30))).isTrue();
        passTime(LATER.multipliedBy(2));
        assertThat(q.poll(Duration.ZERO)).as("not redelivered while extended").isNull();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 1, 0));
        assertThat(d.extend(LATER)).as("extended again").isTrue();
        assertThat(d.ack()).isTrue();
        assertThat(q.offer(id, "again", Duration.ZERO)).as("acked: the id is free").isTrue();
    }

    @Test
    void extendCanShortenALeaseAndFailsOnceTheLeaseIsLost() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(FAR));
        q.offer("v", Duration.ZERO);
        Delivery<String> first = take(q);
        assertThat(first.extend(Duration.ofMillis(1))).isTrue();
        passTime(SOON);
        Delivery<String> second = take(q);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(first.extend(FAR)).as("timed out and redelivered: the lease is lost").isFalse();
        assertThat(second.extend(FAR)).isTrue();
        passTime(SOON);
        assertThat(q.poll(Duration.ZERO)).as("the first extend changed nothing").isNull();
        assertThat(second.ack()).isTrue();
        assertThat(second.extend(FAR)).as("after ack").isFalse();

        q.offer("w", Duration.ZERO);
        Delivery<String> nacked = take(q);
        nacked.nack(FAR);
        assertThat(nacked.extend(FAR)).as("after nack").isFalse();
        String cancelled = q.offer("x", Duration.ZERO);
        Delivery<String> d = take(q);
        q.cancel(cancelled);
        assertThat(d.extend(FAR)).as("after cancel").isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 0));
    }

    @Test
    void releaseMakesTheMessagePollableAtOnceWithItsAttemptUnchanged() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(FAR));
        String id = q.offer("prefetched", Duration.ZERO);
        Delivery<String> d = take(q);
        assertThat(d.attempt()).isOne();
        assertThat(d.release()).isTrue();
        assertThat(d.release()).as("second release").isFalse();
        assertThat(d.ack()).as("ack after release").isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 1, 0, 0));

        Delivery<String> again = take(q);
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.value()).isEqualTo("prefetched");
        assertThat(again.attempt()).as("a released delivery does not count").isOne();
        again.nack(Duration.ZERO);
        Delivery<String> third = take(q);
        assertThat(third.attempt()).isEqualTo(2);
        assertThat(third.release()).isTrue();
        assertThat(take(q).attempt()).isEqualTo(2);
    }

    @Test
    void deadLetterBuriesTheMessageWithTheReasonCutToItsLimit() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(5));
        String id = q.offer("bad order", Duration.ZERO);
        Delivery<String> d = take(q);
        assertThat(d.deadLetter("invalid order: no customer")).isTrue();
        assertThat(d.deadLetter("again")).as("second").isFalse();
        assertThat(d.ack()).as("ack after deadLetter").isFalse();
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 1));
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.id()).isEqualTo(id);
        assertThat(letter.attempts()).as("the delivery counts").isOne();
        assertThat(letter.reason()).isEqualTo("invalid order: no customer");

        String longId = q.offer("verbose", Duration.ZERO);
        take(q).deadLetter("x".repeat(5000));
        DeadLetter cut = q.deadLetters(10).stream().filter(l -> l.id().equals(longId)).findFirst().orElseThrow();
        assertThat(cut.reason()).hasSize(DeadLetter.MAX_REASON_LENGTH).startsWith("xxxx")
                .endsWith(DeadLetter.TRUNCATED);
        assertThat(q.requeueDead(id)).isTrue();
        assertThat(take(q).attempt()).isOne();
    }

    @Test
    void deadLettersBeyondTheCountAreTrimmedOldestFirstAndCounted() throws Exception {
        DelayedQueue<String> q = queue(b -> b.deadLetterRetention(Duration.ofDays(1), 3));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(q.offer("bad " + i, Duration.ZERO));
            assertThat(take(q).deadLetter("bad")).isTrue();
        }
        assertThat(q.deadLetters(10)).extracting(DeadLetter::id).containsExactlyElementsOf(ids.subList(2, 5));
        QueueStats stats = q.stats();
        assertThat(stats.dead()).isEqualTo(3);
        assertThat(stats.trimmed()).isEqualTo(2);
        assertThat(q.requeueDead(ids.get(0))).as("a trimmed letter is gone").isFalse();
        assertThat(q.offer(ids.get(0), "offered again", Duration.ZERO)).as("its id is free again").isTrue();
        assertThat(take(q).value()).isEqualTo("offered again");
    }

    @Test
    void deadLettersOlderThanTheMaxAgeAreTrimmedWhenStatsAreRead() throws Exception {
        DelayedQueue<String> q = queue(b -> b.deadLetterRetention(LATER, 1000));
        String old = q.offer("old", Duration.ZERO);
        assertThat(take(q).deadLetter("bad")).isTrue();
        passTime(LATER.plus(SOON));
        String young = q.offer("young", Duration.ZERO);
        assertThat(take(q).deadLetter("bad")).isTrue();
        assertThat(q.deadLetters(10)).extracting(DeadLetter::id).containsExactly(young).doesNotContain(old);
        assertThat(q.stats().trimmed()).isEqualTo(1);
        assertThat(q.stats().dead()).isEqualTo(1);
    }

    @Test
    void theLargestRetentionKeepsEveryDeadLetter() throws Exception {
        DelayedQueue<String> q = queue(b -> b.deadLetterRetention(DelayedQueue.MAX_DELAY, Long.MAX_VALUE));
        String id = q.offer("kept", Duration.ZERO);
        assertThat(take(q).deadLetter("bad")).isTrue();
        QueueStats stats = q.stats();
        assertThat(stats.dead()).isEqualTo(1);
        assertThat(stats.trimmed()).isZero();
        assertThat(q.deadLetters(10)).extracting(DeadLetter::id).containsExactly(id);
    }

    @Test
    void retentionDefaultsBoundDeadLettersAndBadBoundsAreRejectedNamingTheArgument() {
        QueueOptions<String> defaults = QueueOptions.<String>builder().build();
        assertThat(defaults.deadLetterMaxAge()).isEqualTo(QueueOptions.DEFAULT_DEAD_LETTER_MAX_AGE)
                .isEqualTo(Duration.ofDays(14));
        assertThat(defaults.deadLetterMaxCount()).isEqualTo(QueueOptions.DEFAULT_DEAD_LETTER_MAX_COUNT)
                .isEqualTo(100_000);
        assertThatThrownBy(() -> queue(b -> b.deadLetterRetention(Duration.ZERO, 10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxAge must be in [1 ms");
        assertThatThrownBy(() -> queue(b -> b.deadLetterRetention(Duration.ofDays(1), 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxCount must be at least 1");
    }

    @Test
    void nackReasonIsTheDeadLettersReasonWhenAttemptsRunOut() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(2).visibilityTimeout(LATER));
        // ':' and '!' in value and reasons: both must survive however the backend stores the last error.
        String id = q.offer("a:b!c", Duration.ZERO);
        Delivery<String> first = take(q);
        assertThat(first.nack(Duration.ZERO, "java.io.IOException: 3!x:y")).isTrue();
        assertThat(first.nack(Duration.ZERO, "again")).as("stale").isFalse();
        Delivery<String> last = take(q);
        assertThat(last.value()).isEqualTo("a:b!c");
        assertThat(last.attempt()).isEqualTo(2);
        assertThat(last.nack(Duration.ZERO, "java.lang.IllegalStateException: still broken")).isTrue();
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.id()).isEqualTo(id);
        assertThat(letter.payload()).isEqualTo("a:b!c".getBytes(StandardCharsets.UTF_8));
        assertThat(letter.reason()).isEqualTo("java.lang.IllegalStateException: still broken");

        // A plain nack keeps the recorded error, and a visibility timeout that uses up the attempts reports it.
        q.purgeDead();
        String timedOut = q.offer("slow", Duration.ZERO);
        take(q).nack(Duration.ZERO, "java.util.concurrent.TimeoutException: upstream");
        take(q); // attempt 2, never acked
        passTime(LATER);
        assertThat(q.poll(Duration.ZERO)).isNull();
        DeadLetter expired = q.deadLetters(1).get(0);
        assertThat(expired.id()).isEqualTo(timedOut);
        assertThat(expired.reason()).isEqualTo("java.util.concurrent.TimeoutException: upstream");

        // Requeued, a message starts without an error: its next death is for its attempts alone.
        assertThat(q.requeueDead(timedOut)).isTrue();
        take(q).nack(Duration.ZERO);
        take(q).nack(Duration.ZERO);
        assertThat(q.deadLetters(1).get(0).reason()).contains("maxAttempts");
    }

    @Test
    void plainNackKeepsTheRecordedErrorAndLongErrorsAreCut() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(3));
        String id = q.offer("v", Duration.ZERO);
        take(q).nack(Duration.ZERO, "e".repeat(3000));
        take(q).nack(Duration.ZERO);
        Delivery<String> last = take(q);
        assertThat(last.value()).isEqualTo("v");
        last.nack(Duration.ZERO);
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.id()).isEqualTo(id);
        assertThat(letter.attempts()).isEqualTo(3);
        assertThat(letter.reason()).hasSize(DeadLetter.MAX_REASON_LENGTH).startsWith("eee")
                .endsWith(DeadLetter.TRUNCATED);
    }

    @Test
    void staleReceiptsChangeNothing() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(FAR));
        q.offer("v", Duration.ZERO);
        Delivery<String> acked = take(q);
        assertThat(acked.ack()).isTrue();
        assertThat(acked.extend(FAR)).isFalse();
        assertThat(acked.release()).isFalse();
        assertThat(acked.deadLetter("r")).isFalse();
        assertThat(acked.nack(Duration.ZERO, "r")).isFalse();

        q.offer("w", Duration.ZERO);
        Delivery<String> released = take(q);
        released.release();
        Delivery<String> holder = take(q);
        assertThat(released.extend(FAR)).isFalse();
        assertThat(released.deadLetter("r")).isFalse();
        assertThat(released.nack(Duration.ZERO, "r")).isFalse();
        assertThat(released.release()).isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 1, 0));
        assertThat(holder.ack()).isTrue();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
    }

    @Test
    void badArgumentsOfTheDeliveryAreRejectedByName() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(FAR));
        q.offer("v", Duration.ZERO);
        Delivery<String> d = take(q);
        assertThatThrownBy(() -> d.extend(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("visibility");
        assertThatThrownBy(() -> d.extend(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("visibility");
        assertThatThrownBy(() -> d.extend(QueueOptions.MAX_VISIBILITY_TIMEOUT.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("visibility");
        assertThatThrownBy(() -> d.deadLetter(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("reason");
        assertThatThrownBy(() -> d.nack(null, "r")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("retryDelay");
        assertThatThrownBy(() -> d.nack(Duration.ZERO, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("reason");
        assertThatThrownBy(() -> d.nack(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("retryDelay");
        assertThat(countsOf(q)).as("nothing changed").isEqualTo(counts(0, 0, 1, 0));
        assertThat(d.ack()).isTrue();
    }

    @Test
    void requeuedDeadLetterIsDeliveredAgainFromAttemptOne() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        String id = q.offer("phoenix", Duration.ZERO);
        String other = q.offer("other", FAR);
        take(q).nack(Duration.ZERO);
        assertThat(q.requeueDead(id)).isTrue();
        assertThat(q.requeueDead(id)).as("no longer dead").isFalse();
        assertThat(q.requeueDead(other)).as("not dead").isFalse();
        assertThat(q.requeueDead("no-such-id")).isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(1, 1, 0, 0));

        Delivery<String> again = take(q);
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.value()).isEqualTo("phoenix");
        assertThat(again.attempt()).isOne();
        assertThat(again.ack()).isTrue();
    }

    @Test
    void deadLettersAreListedOldestFirstAndPurged() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        List<String> ids = new ArrayList<>();
        for (String v : List.of("a", "b", "c")) {
            ids.add(q.offer(v, Duration.ZERO));
            take(q).nack(Duration.ZERO);
        }
        assertThat(q.deadLetters(2)).extracting(DeadLetter::id).containsExactly(ids.get(0), ids.get(1));
        assertThat(q.deadLetters(10)).extracting(DeadLetter::id).containsExactlyElementsOf(ids);
        assertThatThrownBy(() -> q.deadLetters(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");

        assertThat(q.purgeDead()).isEqualTo(3);
        assertThat(q.deadLetters(10)).isEmpty();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
        assertThat(q.purgeDead()).isZero();
        assertThat(q.requeueDead(ids.get(0))).as("purged").isFalse();
    }

    // ---- codec ----

    @Test
    void undecodableMessageGoesToDeadLettersAndTheNextIsStillDelivered() throws Exception {
        DelayedQueue<String> q = newQueue(new FussyCodec(), options -> { });
        String poison = q.offer("poison", Duration.ZERO);
        q.offer("good", Duration.ZERO);
        Delivery<String> d = take(q);
        assertThat(d.value()).isEqualTo("good");
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 1, 1));

        DeadLetter letter = q.deadLetters(10).get(0);
        assertThat(letter.id()).isEqualTo(poison);
        assertThat(letter.payload()).isEqualTo("poison".getBytes(StandardCharsets.UTF_8));
        assertThat(letter.reason()).contains("poison pill refused");
    }

    @Test
    void unencodableValueIsRejectedAndNothingIsStored() {
        DelayedQueue<String> q = newQueue(new FussyCodec(), options -> { });
        assertThatThrownBy(() -> q.offer("unencodable", Duration.ZERO)).isInstanceOf(CodecException.class)
                .hasMessageContaining("FussyCodec");
        assertThatThrownBy(() -> q.offer("mine", "unencodable", Duration.ZERO)).isInstanceOf(CodecException.class);
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
        assertThat(q.offer("mine", "fine", Duration.ZERO)).as("the failed offer did not take the id").isTrue();
    }

    // ---- stats ----

    @Test
    void statsCountEveryStateAndTellWhenTheNextMessageIsDue() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        assertThat(q.stats()).isEqualTo(new QueueStats(0, 0, 0, 0, Optional.empty()));

        q.offer("soon", LATER);
        q.offer("far", FAR);
        q.offer("r1", Duration.ZERO);
        q.offer("r2", Duration.ZERO);
        q.offer("r3", Duration.ZERO);
        take(q);
        take(q).nack(Duration.ZERO);

        QueueStats stats = q.stats();
        assertThat(stats.delayed()).isEqualTo(2);
        assertThat(stats.ready()).isEqualTo(1);
        assertThat(stats.inFlight()).isEqualTo(1);
        assertThat(stats.dead()).isEqualTo(1);
        assertThat(stats.total()).isEqualTo(5);
        assertThat(stats.nextDueIn()).hasValueSatisfying(d -> assertThat(d).isBetween(Duration.ZERO, LATER));

        passTime(LATER);
        stats = q.stats();
        assertThat(countsOf(q)).isEqualTo(counts(1, 2, 1, 1));
        assertThat(stats.nextDueIn()).hasValueSatisfying(d -> assertThat(d).isBetween(LATER, FAR));
    }

    // ---- blocking poll ----

    @Test
    void pollReturnsNullAfterWaitingWhenNothingIsDue() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("far", FAR);
        assertThat(q.poll(Duration.ZERO)).isNull();
        Future<Delivery<String>> poll = inBackground(() -> q.poll(SOON));
        assertThat(passTimeUntilDone(poll, SOON)).isNull();
    }

    @Test
    void blockedPollReturnsAMessageThatFallsDueWhileItWaits() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("awaited", SOON);
        Future<Delivery<String>> poll = inBackground(() -> q.poll(Duration.ofSeconds(10)));
        Delivery<String> d = passTimeUntilDone(poll, SOON);
        assertThat(d).isNotNull();
        assertThat(d.value()).isEqualTo("awaited");
    }

    @Test
    void blockedPollReturnsAMessageOfferedWhileItWaits() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("far", FAR);
        Future<Delivery<String>> poll = inBackground(() -> q.poll(Duration.ofSeconds(10)));
        q.offer("now", Duration.ZERO);
        Delivery<String> d = poll.get(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(d).isNotNull();
        assertThat(d.value()).isEqualTo("now");
    }

    @Test
    void closeEndsABlockedPoll() throws Exception {
        DelayedQueue<String> q = queue();
        Future<Delivery<String>> poll = inBackground(() -> q.poll(Duration.ofSeconds(60)));
        q.close();
        try {
            assertThat(poll.get(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS)).isNull();
        } catch (ExecutionException e) {
            // The poll began after close: then it must fail, not block.
            assertThat(e.getCause()).isInstanceOf(IllegalStateException.class);
        }
    }

    // ---- concurrency ----

    @Test
    void twoConsumersNeverHoldTheSameMessageAndReceiveEachOnce() throws Exception {
        DelayedQueue<String> q = queue();
        int total = 200;
        for (int i = 0; i < total; i++) {
            q.offer("m" + i, Duration.ZERO);
        }
        Set<String> held = ConcurrentHashMap.newKeySet();
        Map<String, Integer> received = new ConcurrentHashMap<>();
        AtomicInteger acked = new AtomicInteger();
        Callable<Integer> consumer = () -> {
            int mine = 0;
            long deadline = System.nanoTime() + REAL_TIME_LIMIT.toNanos();
            while (acked.get() < total && System.nanoTime() - deadline < 0) {
                Delivery<String> d = q.poll(Duration.ZERO);
                if (d == null) {
                    Thread.yield();
                    continue;
                }
                assertThat(held.add(d.id())).as("%s held by two consumers at once", d.id()).isTrue();
                received.merge(d.value(), 1, Integer::sum);
                assertThat(d.ack()).isTrue();
                held.remove(d.id());
                acked.incrementAndGet();
                mine++;
            }
            return mine;
        };
        Future<Integer> one = inBackground(consumer);
        Future<Integer> two = inBackground(consumer);
        int byOne = one.get(REAL_TIME_LIMIT.toSeconds() + 5, TimeUnit.SECONDS);
        int byTwo = two.get(REAL_TIME_LIMIT.toSeconds() + 5, TimeUnit.SECONDS);
        assertThat(byOne + byTwo).isEqualTo(total);
        assertThat(received).hasSize(total);
        assertThat(received.values()).allMatch(n -> n == 1);
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
    }

    // ---- bad input ----

    @Test
    void nullArgumentsAreRejectedByName() throws Exception {
        DelayedQueue<String> q = queue();
        assertThatThrownBy(() -> q.offer(null, Duration.ZERO)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("value");
        assertThatThrownBy(() -> q.offer("v", null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("delay");
        assertThatThrownBy(() -> q.offer(null, "v", Duration.ZERO)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("id");
        assertThatThrownBy(() -> q.offer("id", null, Duration.ZERO)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("value");
        assertThatThrownBy(() -> q.offer("v", 1, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
        assertThatThrownBy(() -> q.cancel(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> q.reschedule(null, Duration.ZERO)).isInstanceOf(NullPointerException.class);
        String id = q.offer("v", FAR);
        assertThatThrownBy(() -> q.reschedule(id, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> q.poll(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> q.requeueDead(null)).isInstanceOf(NullPointerException.class);
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 0));
    }

    @Test
    void delayBeyondMaxDelayIsRejectedNamingTheLimit() throws Exception {
        DelayedQueue<String> q = queue();
        Duration tooLong = DelayedQueue.MAX_DELAY.plusMillis(1);
        String limit = String.valueOf(DelayedQueue.MAX_DELAY.toMillis());
        assertThatThrownBy(() -> q.offer("v", tooLong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(limit).hasMessageContaining("MAX_DELAY");
        assertThatThrownBy(() -> q.offer("own", "v", tooLong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(limit);
        String id = q.offer("v", Duration.ZERO);
        assertThatThrownBy(() -> q.reschedule(id, tooLong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(limit);
        Delivery<String> d = take(q);
        assertThatThrownBy(() -> d.nack(tooLong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(limit);
        assertThat(countsOf(q)).as("nothing stored, nothing moved").isEqualTo(counts(0, 0, 1, 0));
        assertThat(q.offer("own", "v", Duration.ZERO)).as("the rejected offer did not take the id").isTrue();

        q.offer("longest", DelayedQueue.MAX_DELAY);
        assertThat(q.stats().delayed()).isOne();
    }

    @Test
    void hugeDelayInTimeUnitsIsRejectedNamingMaxDelay() throws Exception {
        DelayedQueue<String> q = queue();
        String limit = String.valueOf(DelayedQueue.MAX_DELAY.toMillis());
        // Long.MAX_VALUE of every unit from microseconds up exceeds MAX_DELAY, most of them beyond what a Duration
        // holds; Long.MAX_VALUE nanoseconds (292 years) is within it.
        List<TimeUnit> units = List.of(TimeUnit.DAYS, TimeUnit.HOURS, TimeUnit.MINUTES, TimeUnit.SECONDS,
                TimeUnit.MILLISECONDS, TimeUnit.MICROSECONDS);
        for (TimeUnit unit : units) {
            assertThatThrownBy(() -> q.offer("v", Long.MAX_VALUE, unit)).as("%s", unit)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("delay ").hasMessageContaining("MAX_DELAY").hasMessageContaining(limit);
        }
        long maxMillis = DelayedQueue.MAX_DELAY.toMillis();
        assertThatThrownBy(() -> q.offer("v", maxMillis + 1, TimeUnit.MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MAX_DELAY");
        assertThatThrownBy(() -> q.offer("v", maxMillis / 1000 / 86_400 + 1, TimeUnit.DAYS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MAX_DELAY");
        assertThat(countsOf(q)).as("nothing stored").isEqualTo(counts(0, 0, 0, 0));

        q.offer("longest", maxMillis, TimeUnit.MILLISECONDS);
        q.offer("whole days", maxMillis / 1000 / 86_400, TimeUnit.DAYS);
        q.offer("292 years", Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        assertThat(countsOf(q)).isEqualTo(counts(3, 0, 0, 0));
    }

    @Test
    void payloadAboveMaxPayloadBytesIsRejectedNamingTheLimit() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxPayloadBytes(8));
        q.offer("12345678", Duration.ZERO);
        // The same type and message on every backend: both check through QueueSupport.encode.
        String nineBytes = "value of queue '" + q.name() + "' is 9 bytes encoded, above maxPayloadBytes (8)";
        assertThatThrownBy(() -> q.offer("123456789", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(nineBytes);
        assertThatThrownBy(() -> q.offer("big", "éééé€", Duration.ZERO))
                .as("the limit counts encoded bytes").isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value of queue '" + q.name() + "' is 11 bytes encoded, above maxPayloadBytes (8)");
        assertThatThrownBy(() -> q.offerAll(List.of("fine", "123456789"), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(nineBytes);
        assertThatThrownBy(() -> q.offerAll(Map.of("big", "123456789"), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(nineBytes);
        assertThat(countsOf(q)).isEqualTo(counts(0, 1, 0, 0));
        assertThat(take(q).value()).isEqualTo("12345678");

        DelayedQueue<String> byDefault = queue();
        int limit = QueueOptions.DEFAULT_MAX_PAYLOAD_BYTES;
        byDefault.offer("x".repeat(limit), Duration.ZERO);
        assertThatThrownBy(() -> byDefault.offer("x".repeat(limit + 1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("value of queue '" + byDefault.name()
                        + "' is " + (limit + 1) + " bytes encoded, above maxPayloadBytes (" + limit + ")");
        assertThat(countsOf(byDefault)).isEqualTo(counts(0, 1, 0, 0));
    }

    @Test
    void emptyOrOversizedIdIsRejected() {
        DelayedQueue<String> q = queue();
        assertThatThrownBy(() -> q.offer("", "v", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("id");
        String tooLong = "x".repeat(DelayedQueue.MAX_ID_BYTES + 1);
        assertThatThrownBy(() -> q.offer(tooLong, "v", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(DelayedQueue.MAX_ID_BYTES));
        String wideChars = "é".repeat(DelayedQueue.MAX_ID_BYTES / 2 + 1); // 2 UTF-8 bytes each
        assertThatThrownBy(() -> q.offer(wideChars, "v", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
        assertThat(q.offer("x".repeat(DelayedQueue.MAX_ID_BYTES), "v", Duration.ZERO)).isTrue();
        assertThat(q.offer("é".repeat(DelayedQueue.MAX_ID_BYTES / 2), "v", Duration.ZERO)).isTrue();
    }

    @Test
    void idsWithUnpairedSurrogatesAreRejectedNamingTheId() throws Exception {
        DelayedQueue<String> q = queue();
        // UTF-8 cannot encode a lone surrogate: encoders write '?' for each, so the first two would both be "a?b"
        // on a backend that keeps ids as bytes; the last holds a low and a high surrogate in the wrong order.
        List<String> malformed = List.of("a\uD800b", "a\uDC00b", "\uD800", "ab\uDBFF", "\uDC00\uD800x");
        String existing = q.offer("a?b", "kept", FAR) ? "a?b" : null;
        for (String bad : malformed) {
            Map<String, String> batch = new LinkedHashMap<>();
            batch.put("fine", "v");
            batch.put(bad, "w");
            List<Callable<?>> calls = List.of(
                    () -> q.offer(bad, "v", Duration.ZERO),
                    () -> q.offerAll(batch, Duration.ZERO),
                    () -> q.cancel(bad),
                    () -> q.reschedule(bad, Duration.ZERO),
                    () -> q.requeueDead(bad));
            for (Callable<?> call : calls) {
                assertThatThrownBy(call::call).as("id %s", bad.codePoints().mapToObj(Integer::toHexString).toList())
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("id ").hasMessageContaining("surrogate");
            }
        }
        assertThat(countsOf(q)).as("nothing stored, nothing moved").isEqualTo(counts(1, 0, 0, 0));
        assertThat(existing).isNotNull();
        assertThat(q.offer("fine", "v", Duration.ZERO)).as("the rejected batches did not take the id").isTrue();

        // Well-formed supplementary characters are fine, count four UTF-8 bytes each and stay distinct.
        String grin = "\uD83D\uDE00"; // U+1F600
        assertThat(q.offer("a" + grin + "b", "v", Duration.ZERO)).isTrue();
        assertThat(q.offer("a" + grin + "b", "v", Duration.ZERO)).as("same id: deduplicated").isFalse();
        assertThat(q.offer(grin.repeat(DelayedQueue.MAX_ID_BYTES / 4), "v", Duration.ZERO)).isTrue();
        assertThatThrownBy(() -> q.offer(grin.repeat(DelayedQueue.MAX_ID_BYTES / 4) + "x", "v", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(DelayedQueue.MAX_ID_BYTES)).hasMessageContaining("257");
        assertThat(q.cancel("a?b")).as("the id '?' itself is an ordinary id").isTrue();
    }

    @Test
    void valueWithAnUnpairedSurrogateIsRefusedByTheStringCodecAndNothingIsStored() {
        DelayedQueue<String> q = queue();
        assertThatThrownBy(() -> q.offer("a\uD800b", Duration.ZERO)).isInstanceOf(CodecException.class)
                .hasMessageContaining("Codec.string()").hasMessageContaining("surrogate");
        assertThatThrownBy(() -> q.offer("own", "a\uDC00b", Duration.ZERO)).isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> q.offerAll(List.of("fine", "x\uDBFF"), Duration.ZERO))
                .isInstanceOf(CodecException.class);
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
        assertThat(q.offer("own", "a?b \uD83D\uDE00", Duration.ZERO)).as("the failed offer did not take the id")
                .isTrue();
    }

    @Test
    void useAfterCloseFailsNamingTheQueue() throws Exception {
        DelayedQueue<String> q = queue();
        String id = q.offer("kept", Duration.ZERO);
        String name = q.name();
        q.close();
        q.close(); // idempotent
        assertThat(q.name()).isEqualTo(name);
        List<Callable<?>> calls = List.of(
                () -> q.offer("v", Duration.ZERO),
                () -> q.offer("own", "v", Duration.ZERO),
                () -> q.cancel(id),
                () -> q.reschedule(id, Duration.ZERO),
                () -> q.poll(Duration.ZERO),
                q::stats,
                () -> q.deadLetters(1),
                () -> q.requeueDead(id),
                q::purgeDead,
                () -> q.offerAll(List.of("v"), Duration.ZERO),
                () -> q.offerAll(Map.of("own", "v"), Duration.ZERO),
                () -> q.poll(10, Duration.ZERO),
                () -> q.ackAll(List.of()));
        for (Callable<?> call : calls) {
            assertThatThrownBy(call::call).isInstanceOf(IllegalStateException.class).hasMessageContaining(name);
        }
    }

    // ---- batches ----

    @Test
    void offerAllReturnsAnIdPerValueAndBatchPollDeliversThemInListOrder() throws Exception {
        DelayedQueue<String> q = queue();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            values.add("v" + i);
        }
        List<String> ids = q.offerAll(values, Duration.ZERO);
        assertThat(ids).hasSize(50).doesNotHaveDuplicates();
        assertThat(countsOf(q)).isEqualTo(counts(0, 50, 0, 0));

        List<Delivery<String>> batch = q.poll(DelayedQueue.MAX_BATCH, Duration.ZERO);
        assertThat(values(batch)).as("list order within one due time").isEqualTo(values);
        assertThat(batch.stream().map(Delivery::id).toList()).isEqualTo(ids);
        assertThat(batch).allSatisfy(d -> assertThat(d.attempt()).isOne());
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 50, 0));
    }

    @Test
    void offerAllDelaysEveryMessage() throws Exception {
        DelayedQueue<String> q = queue();
        q.offerAll(List.of("a", "b", "c"), LATER);
        assertThat(q.poll(10, Duration.ZERO)).isEmpty();
        assertThat(countsOf(q)).isEqualTo(counts(3, 0, 0, 0));
        passTime(LATER);
        assertThat(values(q.poll(10, Duration.ZERO))).containsExactly("a", "b", "c");
    }

    @Test
    void offerAllWithOwnIdsAddsOnlyUnknownIdsInMapOrder() throws Exception {
        DelayedQueue<String> q = queue();
        assertThat(q.offer("b", "old b", Duration.ZERO)).isTrue();
        Map<String, String> batch = new LinkedHashMap<>();
        batch.put("c", "new c");
        batch.put("b", "new b");
        batch.put("a", "new a");
        assertThat(q.offerAll(batch, Duration.ZERO)).containsExactly("c", "a");
        assertThat(q.offerAll(batch, Duration.ZERO)).as("all known now").isEmpty();
        assertThat(values(q.poll(10, Duration.ZERO))).containsExactly("old b", "new c", "new a");
    }

    @Test
    void batchPollTakesAtMostMaxMessagesAndNeverWaitsToFillTheBatch() throws Exception {
        DelayedQueue<String> q = queue();
        q.offerAll(List.of("1", "2", "3", "4", "5"), Duration.ZERO);
        q.offer("later", FAR);
        assertThat(values(q.poll(3, Duration.ZERO))).containsExactly("1", "2", "3");
        long start = System.nanoTime();
        assertThat(values(q.poll(3, Duration.ofSeconds(10)))).as("what is ready, at once").containsExactly("4", "5");
        assertThat(System.nanoTime() - start).as("did not wait for a full batch")
                .isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(q.poll(3, Duration.ZERO)).isEmpty();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 5, 0));
    }

    @Test
    void blockedBatchPollReturnsMessagesOfferedWhileItWaits() throws Exception {
        DelayedQueue<String> q = queue();
        Future<List<Delivery<String>>> poll = inBackground(() -> q.poll(10, Duration.ofSeconds(10)));
        q.offerAll(List.of("x", "y"), Duration.ZERO);
        List<Delivery<String>> got = new ArrayList<>(poll.get(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS));
        assertThat(got).isNotEmpty();
        // The poll may have woken after the first of the two arrived on some backends: the rest is still there.
        got.addAll(q.poll(10, Duration.ZERO));
        assertThat(values(got)).containsExactly("x", "y");
    }

    @Test
    void batchPollReturnsEmptyAfterWaitingWhenNothingIsDue() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("far", FAR);
        Future<List<Delivery<String>>> poll = inBackground(() -> q.poll(10, SOON));
        assertThat(passTimeUntilDone(poll, SOON)).isEmpty();
    }

    @Test
    void ackAllAcksEachDeliveryThatStillHoldsItsMessage() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(LATER));
        List<String> ids = q.offerAll(List.of("a", "b", "c", "d"), Duration.ZERO);
        List<Delivery<String>> batch = q.poll(10, Duration.ZERO);
        assertThat(batch).hasSize(4);
        assertThat(batch.get(0).ack()).as("acked alone first").isTrue();
        assertThat(q.cancel(ids.get(1))).isTrue();

        List<Delivery<String>> toAck = new ArrayList<>(batch.subList(0, 3));
        toAck.add(batch.get(2)); // the same delivery twice: only the first counts
        assertThat(q.ackAll(toAck)).containsExactly(false, false, true, false);
        assertThat(countsOf(q)).as("d still in flight").isEqualTo(counts(0, 0, 1, 0));

        passTime(LATER);
        List<Delivery<String>> again = q.poll(10, Duration.ZERO);
        assertThat(values(again)).as("unacked: redelivered after the visibility timeout").containsExactly("d");
        assertThat(again.get(0).attempt()).isEqualTo(2);
        assertThat(q.ackAll(List.of(batch.get(3)))).as("stale receipt").containsExactly(false);
        assertThat(q.ackAll(again)).containsExactly(true);
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
        assertThat(q.ackAll(List.of())).isEmpty();
    }

    @Test
    void ackAndPollAcksAndTakesTheNextReadyMessageInOrder() throws Exception {
        DelayedQueue<String> q = queue();
        q.offerAll(List.of("a", "b", "c"), Duration.ZERO);
        q.offer("far", FAR);
        Delivery<String> a = take(q);
        assertThat(a.value()).isEqualTo("a");

        AckAndPoll<String> r = q.ackAndPoll(a);
        assertThat(r.acked()).isTrue();
        assertThat(r.next().value()).isEqualTo("b");
        assertThat(r.next().attempt()).isEqualTo(1);
        AckAndPoll<String> r2 = q.ackAndPoll(r.next());
        assertThat(r2.acked()).isTrue();
        assertThat(r2.next().value()).isEqualTo("c");
        assertThat(countsOf(q)).as("c in flight, far delayed").isEqualTo(counts(1, 0, 1, 0));

        AckAndPoll<String> r3 = q.ackAndPoll(r2.next());
        assertThat(r3.acked()).isTrue();
        assertThat(r3.next()).as("only a delayed message is left").isNull();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 0));
        assertThat(q.ackAndPoll(r2.next()).acked()).as("acked twice: the second finds nothing").isFalse();
    }

    @Test
    void ackAndPollOfALostLeaseStillTakesTheNextMessage() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(LATER));
        q.offer("a", Duration.ZERO);
        Delivery<String> first = take(q);
        passTime(LATER);
        Delivery<String> again = take(q);
        assertThat(again.attempt()).as("redelivered after the visibility timeout").isEqualTo(2);
        q.offer("b", Duration.ZERO);

        AckAndPoll<String> r = q.ackAndPoll(first);
        assertThat(r.acked()).as("the first delivery's lease was lost").isFalse();
        assertThat(r.next().value()).isEqualTo("b");
        assertThat(q.ackAndPoll(again).acked()).isTrue();
        assertThat(q.ackAndPoll(r.next())).isEqualTo(new AckAndPoll<String>(true, null));
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
    }

    @Test
    void concurrentAckAndPollCallsHandleEveryMessageOnce() throws Exception {
        DelayedQueue<String> q = queue();
        int n = 400;
        List<String> values = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            values.add("m" + i);
        }
        q.offerAll(values, Duration.ZERO);
        List<Future<List<String>>> consumers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            consumers.add(inBackground(() -> {
                List<String> seen = new ArrayList<>();
                Delivery<String> d;
                while ((d = q.poll(Duration.ZERO)) != null) { // a partitioned queue's next comes from d's partition
                    while (d != null) {
                        seen.add(d.value());
                        AckAndPoll<String> r = q.ackAndPoll(d);
                        assertThat(r.acked()).isTrue();
                        d = r.next();
                    }
                }
                return seen;
            }));
        }
        List<String> all = new ArrayList<>();
        for (Future<List<String>> f : consumers) {
            all.addAll(f.get(30, TimeUnit.SECONDS));
        }
        assertThat(all).as("each message handled by exactly one consumer").hasSize(n)
                .containsExactlyInAnyOrderElementsOf(values);
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
    }

    @Test
    void ackAndPollRefusesAForeignOrNullDeliveryAndAClosedQueue() throws Exception {
        DelayedQueue<String> q = queue();
        DelayedQueue<String> other = queue();
        q.offer("a", Duration.ZERO);
        other.offer("b", Duration.ZERO);
        Delivery<String> foreign = take(other);
        assertThatThrownBy(() -> q.ackAndPoll(foreign)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(q.name());
        assertThatThrownBy(() -> q.ackAndPoll(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("done");
        assertThat(countsOf(other)).as("the foreign delivery was not acked").isEqualTo(counts(0, 0, 1, 0));
        assertThat(countsOf(q)).as("nothing was taken").isEqualTo(counts(0, 1, 0, 0));
        Delivery<String> a = take(q);
        q.close();
        assertThatThrownBy(() -> q.ackAndPoll(a)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(q.name());
    }

    @Test
    void batchDeliveriesCanBeNackedOneByOne() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(2));
        q.offerAll(List.of("a", "b"), Duration.ZERO);
        List<Delivery<String>> batch = q.poll(2, Duration.ZERO);
        assertThat(batch.get(0).nack(Duration.ZERO)).isTrue();
        assertThat(batch.get(1).ack()).isTrue();
        Delivery<String> retry = take(q);
        assertThat(retry.value()).isEqualTo("a");
        assertThat(retry.attempt()).isEqualTo(2);
    }

    @Test
    void undecodableMessageInABatchPollGoesToDeadLettersAndTheRestAreDelivered() throws Exception {
        DelayedQueue<String> q = newQueue(new FussyCodec(), options -> { });
        List<String> ids = q.offerAll(List.of("good 1", "poison", "good 2"), Duration.ZERO);
        assertThat(values(q.poll(10, Duration.ZERO))).containsExactly("good 1", "good 2");
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 2, 1));
        assertThat(q.deadLetters(10)).extracting(DeadLetter::id).containsExactly(ids.get(1));

        String poison = q.offer("poison", Duration.ZERO);
        assertThat(q.poll(10, Duration.ZERO)).as("nothing decodable").isEmpty();
        assertThat(q.deadLetters(10)).extracting(DeadLetter::id).contains(poison);
    }

    @Test
    void badBatchesAreRejectedNamingTheArgumentAndStoreNothing() throws Exception {
        DelayedQueue<String> q = newQueue(new FussyCodec(), options -> { });
        List<String> withNull = new ArrayList<>(List.of("a", "b"));
        withNull.add(null);
        assertThatThrownBy(() -> q.offerAll(withNull, Duration.ZERO)).isInstanceOf(NullPointerException.class)
                .hasMessage("values[2]");
        assertThatThrownBy(() -> q.offerAll(List.of("a", "unencodable"), Duration.ZERO))
                .isInstanceOf(CodecException.class);
        List<String> tooMany = Collections.nCopies(DelayedQueue.MAX_BATCH + 1, "v");
        assertThatThrownBy(() -> q.offerAll(tooMany, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("values").hasMessageContaining("1000").hasMessageContaining("1001");
        assertThatThrownBy(() -> q.offerAll(List.of("a"), DelayedQueue.MAX_DELAY.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MAX_DELAY");
        assertThatThrownBy(() -> q.offerAll((List<String>) null, Duration.ZERO))
                .isInstanceOf(NullPointerException.class).hasMessage("values");

        Map<String, String> badId = new LinkedHashMap<>();
        badId.put("fine", "a");
        badId.put("", "b");
        assertThatThrownBy(() -> q.offerAll(badId, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("id");
        Map<String, String> badValue = new LinkedHashMap<>();
        badValue.put("fine", "a");
        badValue.put("bad", "unencodable");
        assertThatThrownBy(() -> q.offerAll(badValue, Duration.ZERO)).isInstanceOf(CodecException.class);
        Map<String, String> nullValue = new LinkedHashMap<>();
        nullValue.put("fine", "a");
        nullValue.put("missing", null);
        assertThatThrownBy(() -> q.offerAll(nullValue, Duration.ZERO)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("missing");
        assertThat(countsOf(q)).as("no bad batch stored anything").isEqualTo(counts(0, 0, 0, 0));
        assertThat(q.offer("fine", "a", Duration.ZERO)).as("the failed batches did not take the id").isTrue();

        assertThatThrownBy(() -> q.poll(0, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxMessages").hasMessageContaining("1000");
        assertThatThrownBy(() -> q.poll(DelayedQueue.MAX_BATCH + 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMessages");
        assertThat(q.offerAll(List.of(), Duration.ZERO)).isEmpty();
        assertThat(q.offerAll(Map.of(), Duration.ZERO)).isEmpty();

        List<Delivery<String>> taken = q.poll(10, Duration.ZERO);
        DelayedQueue<String> other = queue();
        other.offer("elsewhere", Duration.ZERO);
        Delivery<String> foreign = take(other);
        List<Delivery<String>> mixed = new ArrayList<>(taken);
        mixed.add(foreign);
        assertThatThrownBy(() -> q.ackAll(mixed)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deliveries[" + taken.size() + "]");
        List<Delivery<String>> nulls = new ArrayList<>(taken);
        nulls.add(null);
        assertThatThrownBy(() -> q.ackAll(nulls)).isInstanceOf(NullPointerException.class)
                .hasMessage("deliveries[" + taken.size() + "]");
        assertThat(countsOf(q)).as("the rejected acks acked nothing").isEqualTo(counts(0, 0, 1, 0));
        assertThat(foreign.ack()).isTrue();
    }

    @Test
    void concurrentBatchConsumersReceiveEachMessageOnce() throws Exception {
        DelayedQueue<String> q = queue();
        int total = 2_000;
        List<String> all = new ArrayList<>();
        for (int i = 0; i < total; i += 100) {
            List<String> batch = new ArrayList<>();
            for (int j = i; j < i + 100; j++) {
                batch.add("m" + j);
            }
            all.addAll(batch);
            q.offerAll(batch, Duration.ZERO);
        }
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        AtomicInteger acked = new AtomicInteger();
        List<Future<Void>> consumers = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            consumers.add(inBackground(() -> {
                List<Delivery<String>> got;
                while (!(got = q.poll(64, Duration.ZERO)).isEmpty()) {
                    got.forEach(d -> seen.merge(d.value(), 1, Integer::sum));
                    acked.addAndGet((int) q.ackAll(got).stream().filter(b -> b).count());
                }
                return null;
            }));
        }
        for (Future<Void> f : consumers) {
            f.get(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(all);
        assertThat(seen.values()).allMatch(n -> n == 1);
        assertThat(acked.get()).isEqualTo(total);
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
    }

    // ---- async ----

    /** Waits for an async call's result (a backend's own stages complete within its command timeout). */
    private static <T> T result(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void offerAsyncAddsTheMessageAndCompletesWithItsId() throws Exception {
        DelayedQueue<String> q = queue();
        String id = result(q.offerAsync("a", Duration.ZERO));
        Delivery<String> d = take(q);
        assertThat(d.id()).isEqualTo(id);
        assertThat(d.value()).isEqualTo("a");
    }

    @Test
    void manyAsyncOffersInFlightFromOneThreadAreEachAddedOnce() throws Exception {
        DelayedQueue<String> q = queue();
        List<java.util.concurrent.CompletableFuture<String>> sent = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            sent.add(q.offerAsync("m" + i, Duration.ZERO).toCompletableFuture());
        }
        Set<String> ids = new HashSet<>();
        for (var f : sent) {
            ids.add(result(f));
        }
        assertThat(ids).hasSize(500);
        Map<String, String> delivered = new LinkedHashMap<>();
        for (Delivery<String> d : drain(q)) {
            assertThat(delivered.put(d.id(), d.value())).as("delivered once: %s", d.id()).isNull();
        }
        assertThat(delivered.keySet()).isEqualTo(ids);
    }

    @Test
    void offerAsyncWithAKnownIdCompletesFalseAndChangesNothing() throws Exception {
        DelayedQueue<String> q = queue();
        assertThat(result(q.offerAsync("order-1", "first", FAR))).isTrue();
        assertThat(result(q.offerAsync("order-1", "second", Duration.ZERO))).isFalse();
        assertThat(q.poll(Duration.ZERO)).as("the first offer's delay stands").isNull();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 0));
    }

    @Test
    void offerAsyncOfAMessageCarriesItsHeadersAndItsConflictPolicy() throws Exception {
        DelayedQueue<String> q = queue();
        io.clockwork.queue.Offered first = result(q.offerAsync(io.clockwork.queue.Message.of("a").id("m-1")
                .delay(FAR).header("tenant", "acme")));
        assertThat(first.id()).isEqualTo("m-1");
        assertThat(first.outcome()).isEqualTo(io.clockwork.queue.Offered.Outcome.ADDED);
        io.clockwork.queue.Offered second = result(q.offerAsync(io.clockwork.queue.Message.of("b").id("m-1")
                .header("tenant", "beta").onConflict(io.clockwork.queue.Message.Conflict.REPLACE)));
        assertThat(second.outcome()).isEqualTo(io.clockwork.queue.Offered.Outcome.REPLACED);
        Delivery<String> d = take(q);
        assertThat(d.value()).isEqualTo("b");
        assertThat(d.headers()).containsExactly(Map.entry("tenant", "beta"));
        io.clockwork.queue.Offered generated = result(q.offerAsync(io.clockwork.queue.Message.of("c")));
        assertThat(generated.id()).isNotEmpty().isNotEqualTo("m-1");
    }

    @Test
    void offerAllAsyncOfMessagesReportsEachOutcomeInOrder() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("kept-1", "old", FAR);
        List<io.clockwork.queue.Offered> got = result(q.offerAllAsync(List.of(
                io.clockwork.queue.Message.of("new").id("kept-1"),
                io.clockwork.queue.Message.of("x").header("k", "v"),
                io.clockwork.queue.Message.of("y").id("y-1").delay(FAR))));
        assertThat(got).extracting(io.clockwork.queue.Offered::outcome).containsExactly(
                io.clockwork.queue.Offered.Outcome.KEPT, io.clockwork.queue.Offered.Outcome.ADDED,
                io.clockwork.queue.Offered.Outcome.ADDED);
        assertThat(got.get(0).id()).isEqualTo("kept-1");
        assertThat(got.get(2).id()).isEqualTo("y-1");
        Delivery<String> d = take(q);
        assertThat(d.id()).isEqualTo(got.get(1).id());
        assertThat(d.headers()).containsExactly(Map.entry("k", "v"));
        assertThat(result(q.offerAllAsync(List.<io.clockwork.queue.Message<String>>of()))).isEmpty();
    }

    @Test
    void offerAllAsyncAddsEveryValueInOrder() throws Exception {
        DelayedQueue<String> q = queue();
        List<String> ids = result(q.offerAllAsync(List.of("a", "b", "c"), Duration.ZERO));
        assertThat(ids).hasSize(3).doesNotHaveDuplicates();
        List<Delivery<String>> got = drain(q);
        assertThat(values(got)).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(got.stream().map(Delivery::id).toList()).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void cancelAsyncCompletesWithWhetherThisCallRemovedTheMessage() throws Exception {
        DelayedQueue<String> q = queue();
        String id = q.offer("a", FAR);
        assertThat(result(q.cancelAsync(id))).isTrue();
        assertThat(result(q.cancelAsync(id))).isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
    }

    @Test
    void ackAsyncRemovesTheMessageOnceAndAStaleReceiptCompletesFalse() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("a", Duration.ZERO);
        Delivery<String> d = take(q);
        assertThat(result(d.ackAsync())).isTrue();
        assertThat(result(d.ackAsync())).isFalse();
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
    }

    @Test
    void asyncCallsCheckTheirArgumentsAndTheQueueBeforeReturning() {
        DelayedQueue<String> q = queue();
        assertThatThrownBy(() -> q.offerAsync(null, Duration.ZERO)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> q.offerAsync("a", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> q.offerAsync("", "a", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.cancelAsync(null)).isInstanceOf(NullPointerException.class);
        q.close();
        assertThatThrownBy(() -> q.offerAsync("a", Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    }

    // ---- messages: headers and the conflict policy ----

    private static final Map<String, String> TRACE = orderedHeaders("traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tenant", "acme", "content-type", "text/plain");

    private static Map<String, String> orderedHeaders(String... namesAndValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            m.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return m;
    }

    @Test
    void messageIsOfferedUnderItsIdAfterItsDelayWithItsHeadersInOrder() throws Exception {
        DelayedQueue<String> q = queue();
        Offered o = q.offer(Message.of("hello").id("greeting-1").delay(LATER).headers(TRACE));
        assertThat(o).isEqualTo(new Offered("greeting-1", Offered.Outcome.ADDED));
        assertThat(q.poll(Duration.ZERO)).as("not before its delay").isNull();
        passTime(LATER);
        Delivery<String> d = take(q);
        assertThat(d.id()).isEqualTo("greeting-1");
        assertThat(d.value()).isEqualTo("hello");
        assertThat(d.headers()).containsExactlyEntriesOf(TRACE);
        assertThatThrownBy(() -> d.headers().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(d.ack()).isTrue();
    }

    @Test
    void messagesWithoutAnIdGetUniqueGeneratedIds() throws Exception {
        DelayedQueue<String> q = queue();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            Offered o = q.offer(Message.of("v" + i));
            assertThat(o.outcome()).isEqualTo(Offered.Outcome.ADDED);
            ids.add(o.id());
        }
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            batch.add(Message.of("w" + i).onConflict(Message.Conflict.REPLACE)); // no id: the policy never applies
        }
        for (Offered o : q.offerAll(batch)) {
            assertThat(o.outcome()).isEqualTo(Offered.Outcome.ADDED);
            assertThat(o.id().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(DelayedQueue.MAX_ID_BYTES);
            ids.add(o.id());
        }
        assertThat(ids).hasSize(100);
        assertThat(countsOf(q)).isEqualTo(counts(0, 100, 0, 0));
    }

    @Test
    void messagesWithoutHeadersAndPlainOffersDeliverAnEmptyHeaderMap() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("plain", Duration.ZERO);
        q.offer("own-id", "with id", Duration.ZERO);
        q.offer(Message.of("no headers"));
        q.offer(Message.of("empty map").headers(Map.of()));
        q.offerAll(List.of("batch"), Duration.ZERO);
        List<Delivery<String>> all = drain(q);
        assertThat(values(all)).containsExactly("plain", "with id", "no headers", "empty map", "batch");
        for (Delivery<String> d : all) {
            assertThat(d.headers()).as(d.value()).isEmpty();
        }
    }

    @Test
    void unicodeAndAwkwardHeaderValuesRoundTripExactly() throws Exception {
        DelayedQueue<String> q = queue();
        Map<String, String> awkward = orderedHeaders(
                "unicode", "caf\u00e9 \u4e2d\u6587 \uD83D\uDE00",
                "empty", "",
                "separators", "a:b#c!d=e 12:x\n\r\t",
                "nul", "before\u0000after",
                "Mixed.Case_name-1", "v");
        String longest = "\u20ac".repeat(Message.MAX_HEADER_VALUE_BYTES / 3) + "x"; // 4,096 UTF-8 bytes
        q.offer(Message.of(":#!payload").headers(awkward).header("longest", longest));
        Delivery<String> d = take(q);
        assertThat(d.value()).isEqualTo(":#!payload");
        Map<String, String> expected = new LinkedHashMap<>(awkward);
        expected.put("longest", longest);
        assertThat(d.headers()).containsExactlyEntriesOf(expected);

        Map<String, String> full = new LinkedHashMap<>();
        for (int i = 0; i < Message.MAX_HEADERS; i++) {
            full.put(String.format("h%02d", i), "x".repeat(Message.MAX_HEADERS_BYTES / Message.MAX_HEADERS - 3));
        }
        q.offer(Message.of("at the limits").headers(full));
        assertThat(take(q).headers()).containsExactlyEntriesOf(full);
    }

    @Test
    void headersSurviveNacksExpiryDeathAndRequeue() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(4).visibilityTimeout(LATER));
        String id = q.offer(Message.of("job").headers(TRACE)).id();
        Delivery<String> first = take(q);
        assertThat(first.headers()).containsExactlyEntriesOf(TRACE);
        assertThat(first.nack(Duration.ZERO)).isTrue();

        Delivery<String> second = take(q);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.headers()).as("after a nack").containsExactlyEntriesOf(TRACE);
        assertThat(second.nack(Duration.ZERO, "java.io.IOException: reset #1!")).isTrue();

        Delivery<String> third = take(q);
        assertThat(third.headers()).as("after a nack with a reason").containsExactlyEntriesOf(TRACE);
        passTime(LATER);
        Delivery<String> fourth = take(q);
        assertThat(fourth.attempt()).isEqualTo(4);
        assertThat(fourth.value()).isEqualTo("job");
        assertThat(fourth.headers()).as("after the visibility timeout").containsExactlyEntriesOf(TRACE);
        assertThat(fourth.nack(Duration.ZERO)).isTrue(); // the last attempt: dead

        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.id()).isEqualTo(id);
        assertThat(letter.payload()).isEqualTo("job".getBytes(StandardCharsets.UTF_8));
        assertThat(letter.reason()).isEqualTo("java.io.IOException: reset #1!");
        assertThat(letter.headers()).containsExactlyEntriesOf(TRACE);

        assertThat(q.requeueDead(id)).isTrue();
        Delivery<String> again = take(q);
        assertThat(again.attempt()).isOne();
        assertThat(again.headers()).as("after a requeue").containsExactlyEntriesOf(TRACE);
        assertThat(again.release()).isTrue();
        assertThat(take(q).headers()).as("after a release").containsExactlyEntriesOf(TRACE);
    }

    @Test
    void offersOfMessagesRejectNullsAndOversizedPayloadsAndStoreNothing() {
        DelayedQueue<String> q = queue(b -> b.maxPayloadBytes(8));
        assertThatThrownBy(() -> q.offer((Message<String>) null)).isInstanceOf(NullPointerException.class)
                .hasMessage("message");
        assertThatThrownBy(() -> q.offerAll((List<Message<String>>) null)).isInstanceOf(NullPointerException.class)
                .hasMessage("messages");
        List<Message<String>> withNull = new ArrayList<>();
        withNull.add(Message.of("fine"));
        withNull.add(null);
        assertThatThrownBy(() -> q.offerAll(withNull)).isInstanceOf(NullPointerException.class)
                .hasMessage("messages[1]");
        String nineBytes = "value of queue '" + q.name() + "' is 9 bytes encoded, above maxPayloadBytes (8)";
        assertThatThrownBy(() -> q.offer(Message.of("123456789").headers(TRACE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(nineBytes);
        assertThatThrownBy(() -> q.offerAll(List.of(Message.of("fine"), Message.of("123456789").id("big"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(nineBytes);
        List<Message<String>> tooMany = Collections.nCopies(DelayedQueue.MAX_BATCH + 1, Message.of("x"));
        assertThatThrownBy(() -> q.offerAll(tooMany)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messages").hasMessageContaining("MAX_BATCH");
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 0));
        assertThat(q.offerAll(List.<Message<String>>of())).isEmpty();
        assertThat(q.offer(Message.of("12345678").id("big")).outcome()).as("the id was not taken")
                .isEqualTo(Offered.Outcome.ADDED);
        q.close();
        assertThatThrownBy(() -> q.offer(Message.of("x"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> q.offerAll(List.of(Message.of("x")))).isInstanceOf(IllegalStateException.class);
    }

    private static Message<String> conflicting(String id, String value, Message.Conflict policy, Duration delay) {
        return Message.of(value).id(id).delay(delay).header("version", value).onConflict(policy);
    }

    @Test
    void anUnknownIdIsAddedWhateverThePolicy() throws Exception {
        DelayedQueue<String> q = queue();
        for (Message.Conflict policy : Message.Conflict.values()) {
            assertThat(q.offer(conflicting("id-" + policy, "v-" + policy, policy, Duration.ZERO)))
                    .isEqualTo(new Offered("id-" + policy, Offered.Outcome.ADDED));
        }
        assertThat(values(drain(q))).containsExactly("v-KEEP", "v-REPLACE", "v-EXTEND");
    }

    @Test
    void keepChangesNothingInAnyState() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        q.offer(conflicting("delayed", "old", Message.Conflict.KEEP, FAR));
        q.offer(conflicting("ready", "old", Message.Conflict.KEEP, Duration.ZERO));
        for (String id : List.of("delayed", "ready")) {
            assertThat(q.offer(conflicting(id, "new", Message.Conflict.KEEP, Duration.ZERO)).outcome()).as(id)
                    .isEqualTo(Offered.Outcome.KEPT);
        }
        Delivery<String> d = take(q);
        assertThat(d.value()).isEqualTo("old");
        assertThat(d.headers()).containsEntry("version", "old");
        assertThat(q.offer(conflicting("ready", "new", Message.Conflict.KEEP, Duration.ZERO)).outcome())
                .as("in flight").isEqualTo(Offered.Outcome.KEPT);
        assertThat(d.nack(Duration.ZERO)).isTrue(); // dead
        assertThat(q.offer(conflicting("ready", "new", Message.Conflict.KEEP, Duration.ZERO)).outcome())
                .as("dead").isEqualTo(Offered.Outcome.KEPT);
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 1));
        assertThat(q.deadLetters(1).get(0).headers()).containsEntry("version", "old");
    }

    @Test
    void replaceGivesADelayedMessageTheNewValueHeadersAndDueTime() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(Message.of("old").id("debounced").delay(FAR).header("stale", "yes"));
        assertThat(q.offer(conflicting("debounced", "new", Message.Conflict.REPLACE, LATER)))
                .isEqualTo(new Offered("debounced", Offered.Outcome.REPLACED));
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 0, 0));
        assertThat(q.stats().nextDueIn()).hasValueSatisfying(d -> assertThat(d).isLessThanOrEqualTo(LATER));
        passTime(LATER);
        Delivery<String> d = take(q);
        assertThat(d.id()).isEqualTo("debounced");
        assertThat(d.value()).isEqualTo("new");
        assertThat(d.headers()).as("the headers are replaced, not merged").containsExactly(Map.entry("version", "new"));
        assertThat(d.attempt()).isOne();
    }

    @Test
    void replaceOfAReadyMessageKeepsItsAttemptsAndMakesAnEarlierDeliveryStale() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(LATER));
        q.offer(conflicting("job", "v1", Message.Conflict.KEEP, Duration.ZERO));
        assertThat(take(q).nack(Duration.ZERO)).isTrue();
        Delivery<String> timedOut = take(q);
        assertThat(timedOut.attempt()).isEqualTo(2);
        passTime(LATER);
        assertThat(countsOf(q)).as("the timed-out delivery's message is ready again").isEqualTo(counts(0, 1, 0, 0));

        assertThat(q.offer(conflicting("job", "v2", Message.Conflict.REPLACE, FAR)).outcome())
                .isEqualTo(Offered.Outcome.REPLACED);
        assertThat(countsOf(q)).as("moved to its new due time").isEqualTo(counts(1, 0, 0, 0));
        assertThat(timedOut.ack()).as("replaced: the old delivery no longer holds it").isFalse();
        assertThat(q.offer(conflicting("job", "v3", Message.Conflict.REPLACE, Duration.ZERO)).outcome())
                .isEqualTo(Offered.Outcome.REPLACED);
        Delivery<String> d = take(q);
        assertThat(d.value()).isEqualTo("v3");
        assertThat(d.headers()).containsEntry("version", "v3");
        assertThat(d.attempt()).as("attempts are kept").isEqualTo(3);
    }

    @Test
    void replacedMessageGoesBehindTheMessagesAlreadyDue() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(conflicting("first", "first", Message.Conflict.KEEP, Duration.ZERO));
        q.offer("second", Duration.ZERO);
        q.offer(conflicting("first", "first again", Message.Conflict.REPLACE, Duration.ZERO));
        assertThat(values(drain(q))).containsExactly("second", "first again");
    }

    @Test
    void extendMovesAScheduledMessageKeepingItsValueAndHeaders() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(conflicting("ready", "original", Message.Conflict.KEEP, Duration.ZERO));
        q.offer(conflicting("delayed", "original too", Message.Conflict.KEEP, FAR));
        assertThat(q.offer(conflicting("ready", "ignored", Message.Conflict.EXTEND, LATER)))
                .isEqualTo(new Offered("ready", Offered.Outcome.EXTENDED));
        assertThat(q.offer(conflicting("delayed", "ignored", Message.Conflict.EXTEND, Duration.ZERO)))
                .isEqualTo(new Offered("delayed", Offered.Outcome.EXTENDED));
        Delivery<String> now = take(q);
        assertThat(now.id()).isEqualTo("delayed");
        assertThat(now.value()).isEqualTo("original too");
        assertThat(now.headers()).containsExactly(Map.entry("version", "original too"));
        assertThat(q.poll(Duration.ZERO)).as("the ready one moved later").isNull();
        assertThat(countsOf(q)).isEqualTo(counts(1, 0, 1, 0));
        passTime(LATER);
        Delivery<String> later = take(q);
        assertThat(later.value()).isEqualTo("original");
        assertThat(later.headers()).containsExactly(Map.entry("version", "original"));
    }

    @Test
    void replaceAndExtendLeaveInFlightAndDeadMessagesAlone() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        q.offer(conflicting("busy", "v1", Message.Conflict.KEEP, Duration.ZERO));
        Delivery<String> d = take(q);
        for (Message.Conflict policy : List.of(Message.Conflict.REPLACE, Message.Conflict.EXTEND)) {
            assertThat(q.offer(conflicting("busy", "v2", policy, Duration.ZERO)))
                    .as(policy.toString()).isEqualTo(new Offered("busy", Offered.Outcome.IN_FLIGHT));
        }
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 1, 0));
        assertThat(d.nack(Duration.ZERO)).as("the delivery still holds it").isTrue(); // its only attempt: dead
        for (Message.Conflict policy : List.of(Message.Conflict.REPLACE, Message.Conflict.EXTEND)) {
            assertThat(q.offer(conflicting("busy", "v3", policy, Duration.ZERO)))
                    .as(policy.toString()).isEqualTo(new Offered("busy", Offered.Outcome.DEAD));
        }
        assertThat(countsOf(q)).isEqualTo(counts(0, 0, 0, 1));
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.payload()).isEqualTo("v1".getBytes(StandardCharsets.UTF_8));
        assertThat(letter.headers()).containsExactly(Map.entry("version", "v1"));
    }

    @Test
    void offerAllOfMessagesAppliesEachOnesIdDelayHeadersAndPolicyInOrder() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(conflicting("replace-me", "old", Message.Conflict.KEEP, FAR));
        q.offer(conflicting("extend-me", "kept", Message.Conflict.KEEP, Duration.ZERO));
        q.offer(conflicting("keep-me", "kept too", Message.Conflict.KEEP, Duration.ZERO));
        q.offer(conflicting("busy", "busy", Message.Conflict.KEEP, FAR));
        assertThat(q.reschedule("busy", Duration.ZERO)).isTrue();
        Delivery<String> busy = q.poll(Duration.ZERO);
        while (!busy.id().equals("busy")) { // take and hand back the others until "busy" is in flight
            busy.release();
            busy = take(q);
        }

        List<Offered> result = q.offerAll(List.of(
                Message.of("generated").header("k", "v"),
                conflicting("replace-me", "new", Message.Conflict.REPLACE, Duration.ZERO),
                conflicting("extend-me", "ignored", Message.Conflict.EXTEND, FAR),
                conflicting("keep-me", "ignored", Message.Conflict.KEEP, Duration.ZERO),
                conflicting("busy", "ignored", Message.Conflict.REPLACE, Duration.ZERO),
                conflicting("twice", "first", Message.Conflict.REPLACE, FAR),
                conflicting("twice", "second", Message.Conflict.REPLACE, Duration.ZERO),
                conflicting("dup", "first", Message.Conflict.KEEP, Duration.ZERO),
                conflicting("dup", "second", Message.Conflict.KEEP, Duration.ZERO),
                conflicting("moved", "moved", Message.Conflict.KEEP, Duration.ZERO),
                conflicting("moved", "ignored", Message.Conflict.EXTEND, FAR)));
        assertThat(result).extracting(Offered::outcome).containsExactly(
                Offered.Outcome.ADDED, Offered.Outcome.REPLACED, Offered.Outcome.EXTENDED, Offered.Outcome.KEPT,
                Offered.Outcome.IN_FLIGHT, Offered.Outcome.ADDED, Offered.Outcome.REPLACED, Offered.Outcome.ADDED,
                Offered.Outcome.KEPT, Offered.Outcome.ADDED, Offered.Outcome.EXTENDED);
        assertThat(result.subList(1, result.size())).extracting(Offered::id).containsExactly("replace-me",
                "extend-me", "keep-me", "busy", "twice", "twice", "dup", "dup", "moved", "moved");

        Map<String, Delivery<String>> ready = new HashMap<>();
        for (Delivery<String> d : drain(q)) {
            ready.put(d.id(), d);
        }
        assertThat(ready.keySet()).containsExactlyInAnyOrder(result.get(0).id(), "replace-me", "keep-me", "twice",
                "dup");
        assertThat(ready.get(result.get(0).id()).headers()).containsExactly(Map.entry("k", "v"));
        assertThat(ready.get("replace-me").value()).isEqualTo("new");
        assertThat(ready.get("keep-me").value()).isEqualTo("kept too");
        assertThat(ready.get("twice").value()).isEqualTo("second");
        assertThat(ready.get("twice").headers()).containsExactly(Map.entry("version", "second"));
        assertThat(ready.get("dup").value()).isEqualTo("first");
        assertThat(countsOf(q)).as("extend-me and moved are delayed; busy and the drained are in flight")
                .isEqualTo(counts(2, 0, 6, 0));
        assertThat(busy.ack()).isTrue();
    }
}
