package io.clockwork.testing.queue;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueStats;
import io.clockwork.time.ManualTicker;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stateful property test of a {@link DelayedQueue} against {@link DelayedQueueModel}, written once and run against
 * every backend: jqwik generates chains of offers (generated and caller ids, duplicates included), batch offers,
 * cancels, reschedules, polls, acks, nacks and, where the backend keeps time on a {@code ManualTicker}, passing time.
 * Every call's result must be the model's (ids, dedup flags, booleans, which messages a poll returns, in which order,
 * with which values and attempt numbers), and after every step the queue's {@link QueueStats} and dead letters must be
 * the model's.
 *
 * <p>A backend's test extends this class, supplies a fresh queue from {@link #newQueue}, and declares the property
 * with its own tries and chain length (a real server's round trips cost more than a lock): it calls
 * {@link #chains(int)} from a {@code @Provide} method and {@link #check(ActionChain)} from its {@code @Property}.
 * Shipped in clockwork-core's test-jar.
 *
 * <p>A backend whose clock cannot be driven (Redis uses its server's {@code TIME}) gets only delays that are due at
 * once or in an hour and a one-hour visibility timeout, so that no test step can reach a due time the model does not
 * know of; a ticker-driven backend also gets short delays, a 30 ms visibility timeout and steps of passing time that
 * land before, on and after them.
 */
public abstract class DelayedQueueModelCheck {

    private static final int MAX_ATTEMPTS = 2;
    private static final List<String> CALLER_IDS = List.of("a", "b", "c", "d", "\u00e9t\u00e9");
    private static final String NEVER_OFFERED = "never-offered";
    private static final long HOUR_MS = TimeUnit.HOURS.toMillis(1);
    private static final long VISIBILITY_ON_TICKER_MS = 30;

    private final boolean timeOnTicker;
    private final List<DelayedQueue<String>> open = new ArrayList<>();

    /**
     * @param timeOnTicker true if the queues of {@link #newQueue} keep time on the ticker they are given, so the
     *                     property may move time; false if they keep their own clock, which must not matter
     */
    protected DelayedQueueModelCheck(boolean timeOnTicker) {
        this.timeOnTicker = timeOnTicker;
    }

    /**
     * Creates a fresh, empty queue with a string codec, a new name and the given options.
     *
     * @param options applies the visibility timeout and max attempts the model assumes
     * @param ticker  the clock to keep, for a backend built with {@code timeOnTicker}; ignored by the others
     * @return the queue; the property closes it
     */
    protected abstract DelayedQueue<String> newQueue(Consumer<DelayedQueueBuilder<String, ?>> options,
                                                     ManualTicker ticker);

    /**
     * Chains of up to {@code maxActions} steps, each starting from a fresh queue and model.
     *
     * @param maxActions the longest chain
     * @return the arbitrary of chains
     */
    protected Arbitrary<ActionChain<Run>> chains(int maxActions) {
        var chains = ActionChain.<Run>startWith(this::newRun)
                .withAction(3, new OfferGenerated())
                .withAction(4, new OfferWithId())
                .withAction(1, new OfferAllValues())
                .withAction(2, new OfferAllWithIds())
                .withAction(3, new OfferMessage())
                .withAction(1, new OfferAllMessages())
                .withAction(2, new Cancel())
                .withAction(2, new Reschedule())
                .withAction(4, new Poll())
                .withAction(3, new Ack())
                .withAction(3, new Nack())
                .withAction(1, new Release())
                .withAction(1, new DeadLetterAction())
                .withAction(2, new Extend())
                .withMaxTransformations(maxActions);
        return timeOnTicker ? chains.withAction(3, new PassTime()) : chains;
    }

    /**
     * Runs a chain, checking the queue against the model after every step, and closes the queues it opened.
     *
     * @param chain the chain
     */
    protected void check(ActionChain<Run> chain) {
        try {
            chain.withInvariant("stats and dead letters agree with the model", Run::checkState).run();
        } finally {
            open.forEach(DelayedQueue::close);
            open.clear();
        }
    }

    private Run newRun() {
        ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(50));
        long visibilityMs = timeOnTicker ? VISIBILITY_ON_TICKER_MS : HOUR_MS;
        DelayedQueue<String> queue = newQueue(
                b -> b.visibilityTimeout(Duration.ofMillis(visibilityMs)).maxAttempts(MAX_ATTEMPTS), ticker);
        open.add(queue);
        return new Run(queue, timeOnTicker ? ticker : null, new DelayedQueueModel(visibilityMs, MAX_ATTEMPTS));
    }

    // ---- generators ----

    private Arbitrary<Long> delaysMs() {
        // Negative means due now, as zero does.
        return timeOnTicker ? Arbitraries.of(-5L, 0L, 1L, 2L, 10L, 30L, HOUR_MS) : Arbitraries.of(-5L, 0L, HOUR_MS);
    }

    private static Arbitrary<String> values() {
        return Arbitraries.strings().withChars("xyz\u00e9\u4e2d").ofMaxLength(3);
    }

    private static Arbitrary<String> callerIds() {
        return Arbitraries.of(CALLER_IDS);
    }

    /**
     * Picks an id by its place among the ids the run has offered, resolved when the step runs (generated ids differ
     * from one run of a chain to the next); past the end, an id never offered.
     */
    private static Arbitrary<Integer> offeredIdIndexes(Run run) {
        return Arbitraries.integers().between(0, run.model.everOffered().size());
    }

    /**
     * Picks a delivery by its place in the run's list, mostly one of the latest (which may still hold its message),
     * sometimes an older one (which is more likely stale).
     */
    private static Arbitrary<Integer> recentDeliveries(Run run) {
        int last = run.deliveries.size() - 1;
        return Arbitraries.integers().between(0, last).withDistribution(RandomDistribution.biased()).map(k -> last - k);
    }

    // ---- the run: the queue, the model, and every delivery made so far ----

    /** One chain's queue and model, and the deliveries the queue made, stale ones included. Not thread-safe. */
    public static final class Run {
        private final DelayedQueue<String> queue;
        private final ManualTicker ticker;
        private final DelayedQueueModel model;
        private final List<Delivery<String>> deliveries = new ArrayList<>();
        private final List<Long> tokens = new ArrayList<>();

        Run(DelayedQueue<String> queue, ManualTicker ticker, DelayedQueueModel model) {
            this.queue = queue;
            this.ticker = ticker;
            this.model = model;
        }

        void checkState() {
            QueueStats stats = queue.stats();
            assertThat(new long[] {stats.delayed(), stats.ready(), stats.inFlight(), stats.dead(), stats.lost()})
                    .as("delayed, ready, in flight, dead, lost of %s", model)
                    .containsExactly(model.count(DelayedQueueModel.State.DELAYED),
                            model.count(DelayedQueueModel.State.READY),
                            model.count(DelayedQueueModel.State.IN_FLIGHT),
                            model.count(DelayedQueueModel.State.DEAD), 0L);
            if (ticker != null) {
                assertThat(stats.nextDueIn()).as("nextDueIn of %s", model)
                        .isEqualTo(model.nextDueInMs().map(Duration::ofMillis));
            } else {
                // The server's clock moved an unknown amount since the offers: the next due time is at most an hour
                // away (the only delay that is not due at once), and never past.
                if (model.nextDueInMs().isPresent()) {
                    assertThat(stats.nextDueIn()).as("nextDueIn of %s", model).hasValueSatisfying(d ->
                            assertThat(d).isBetween(Duration.ZERO, Duration.ofMillis(HOUR_MS)));
                } else {
                    assertThat(stats.nextDueIn()).as("nextDueIn of %s", model).isEmpty();
                }
            }
            List<DeadLetter> letters = queue.deadLetters(100);
            assertThat(letters.stream().map(l -> l.id() + " after " + l.attempts()).toList())
                    .as("dead letters, oldest first")
                    .containsExactlyElementsOf(model.deadLetters().stream()
                            .map(m -> m.id + " after " + m.attempts).toList());
            for (int i = 0; i < letters.size(); i++) {
                assertThat(new String(letters.get(i).payload(), StandardCharsets.UTF_8))
                        .as("payload of dead letter %s", letters.get(i).id())
                        .isEqualTo(model.deadLetters().get(i).value);
            }
        }

        String offeredId(int index) {
            List<String> ids = model.everOffered();
            return index < ids.size() ? ids.get(index) : NEVER_OFFERED;
        }

        @Override
        public String toString() {
            return model.toString();
        }
    }

    // ---- actions ----

    private final class OfferGenerated implements Action.Independent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer() {
            return Combinators.combine(values(), delaysMs()).as((value, delay) ->
                    Transformer.mutate("offer " + value + " in " + delay + " ms", run -> {
                        String id = run.queue.offer(value, Duration.ofMillis(delay));
                        assertThat(id).as("a generated id").isNotEmpty();
                        run.model.offerGenerated(id, value, delay);
                    }));
        }
    }

    private final class OfferWithId implements Action.Independent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer() {
            return Combinators.combine(callerIds(), values(), delaysMs()).as((id, value, delay) ->
                    Transformer.mutate("offer " + id + "=" + value + " in " + delay + " ms", run ->
                            assertThat(run.queue.offer(id, value, Duration.ofMillis(delay)))
                                    .as("offer of %s added it (deduplication)", id)
                                    .isEqualTo(run.model.offer(id, value, delay))));
        }
    }

    /** A message with a caller's id, a header and a conflict policy; its outcome must be the model's. */
    private final class OfferMessage implements Action.Independent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer() {
            return Combinators.combine(callerIds(), values(), delaysMs(), policies()).as((id, value, delay, policy) ->
                    Transformer.mutate("offer message " + id + "=" + value + " in " + delay + " ms, " + policy,
                            run -> assertThat(run.queue.offer(message(id, value, delay, policy)).outcome())
                                    .as("outcome of offering %s with %s", id, policy)
                                    .isEqualTo(run.model.offer(id, value, Map.of("v", value), delay, policy))));
        }
    }

    /** A batch of such messages, repeated ids included; every outcome must be the model's, in order. */
    private final class OfferAllMessages implements Action.Independent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer() {
            Arbitrary<List<Message<String>>> batches = Combinators.combine(callerIds(), values(), delaysMs(),
                    policies()).as(DelayedQueueModelCheck::message).list().ofMinSize(1).ofMaxSize(4);
            return batches.map(batch -> Transformer.mutate("offerAll messages " + batch, run -> {
                List<Offered.Outcome> expected = new ArrayList<>();
                for (Message<String> m : batch) {
                    expected.add(run.model.offer(m.id().orElseThrow(), m.value(), m.headers(),
                            m.delay().toMillis(), m.onConflict()));
                }
                assertThat(run.queue.offerAll(batch)).extracting(Offered::outcome).as("outcomes of %s", batch)
                        .containsExactlyElementsOf(expected);
            }));
        }
    }

    private static Message<String> message(String id, String value, long delayMs, Message.Conflict policy) {
        return Message.of(value).id(id).delay(Duration.ofMillis(delayMs)).header("v", value).onConflict(policy);
    }

    private static Arbitrary<Message.Conflict> policies() {
        return Arbitraries.of(Message.Conflict.values());
    }

    private final class OfferAllValues implements Action.Independent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer() {
            return Combinators.combine(values().list().ofMinSize(1).ofMaxSize(3), delaysMs()).as((values, delay) ->
                    Transformer.mutate("offerAll " + values + " in " + delay + " ms", run -> {
                        List<String> ids = run.queue.offerAll(values, Duration.ofMillis(delay));
                        assertThat(ids).as("one new id per value").hasSize(values.size()).doesNotHaveDuplicates();
                        for (int i = 0; i < ids.size(); i++) {
                            run.model.offerGenerated(ids.get(i), values.get(i), delay);
                        }
                    }));
        }
    }

    private final class OfferAllWithIds implements Action.Independent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer() {
            Arbitrary<Map<String, String>> batches = Combinators.combine(
                    callerIds().list().ofMinSize(1).ofMaxSize(3), values().list().ofSize(3)).as((ids, values) -> {
                        Map<String, String> batch = new LinkedHashMap<>();
                        for (int i = 0; i < ids.size(); i++) {
                            batch.putIfAbsent(ids.get(i), values.get(i));
                        }
                        return batch;
                    });
            return Combinators.combine(batches, delaysMs()).as((batch, delay) ->
                    Transformer.mutate("offerAll " + batch + " in " + delay + " ms", run -> {
                        List<String> expected = new ArrayList<>();
                        batch.forEach((id, value) -> {
                            if (run.model.offer(id, value, delay)) {
                                expected.add(id);
                            }
                        });
                        assertThat(run.queue.offerAll(batch, Duration.ofMillis(delay)))
                                .as("the ids added, in order").containsExactlyElementsOf(expected);
                    }));
        }
    }

    private static final class Cancel implements Action.Dependent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer(Run state) {
            return offeredIdIndexes(state).map(i -> Transformer.mutate("cancel offered id " + i, run -> {
                String id = run.offeredId(i);
                assertThat(run.queue.cancel(id)).as("cancel(%s)", id).isEqualTo(run.model.cancel(id));
            }));
        }
    }

    private final class Reschedule implements Action.Dependent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer(Run state) {
            return Combinators.combine(offeredIdIndexes(state), delaysMs()).as((i, delay) ->
                    Transformer.mutate("reschedule offered id " + i + " to " + delay + " ms", run -> {
                        String id = run.offeredId(i);
                        assertThat(run.queue.reschedule(id, Duration.ofMillis(delay)))
                                .as("reschedule(%s)", id).isEqualTo(run.model.reschedule(id, delay));
                    }));
        }
    }

    private static final class Poll implements Action.Independent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer() {
            return Arbitraries.integers().between(1, 4).map(max -> Transformer.mutate("poll " + max, run -> {
                List<DelayedQueueModel.Message> expected = run.model.poll(max);
                List<Delivery<String>> got;
                try {
                    got = max == 1 ? single(run.queue.poll(Duration.ZERO)) : run.queue.poll(max, Duration.ZERO);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
                assertThat(got.stream().map(d -> d.id() + "=" + d.value() + " #" + d.attempt() + " " + d.headers())
                        .toList())
                        .as("deliveries of poll(%d), in order", max)
                        .containsExactlyElementsOf(expected.stream()
                                .map(m -> m.id + "=" + m.value + " #" + m.attempts + " " + m.headers).toList());
                for (int i = 0; i < got.size(); i++) {
                    run.deliveries.add(got.get(i));
                    run.tokens.add(expected.get(i).token);
                }
            }));
        }

        private static List<Delivery<String>> single(Delivery<String> d) {
            return d == null ? List.of() : List.of(d);
        }
    }

    private static final class Ack implements Action.Dependent<Run> {
        @Override
        public boolean precondition(Run run) {
            return !run.deliveries.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<Run>> transformer(Run state) {
            return recentDeliveries(state).map(i ->
                    Transformer.mutate("ack delivery " + i, run -> {
                        Delivery<String> d = run.deliveries.get(i);
                        assertThat(d.ack()).as("ack of %s", d).isEqualTo(run.model.ack(d.id(), run.tokens.get(i)));
                    }));
        }
    }

    private final class Nack implements Action.Dependent<Run> {
        @Override
        public boolean precondition(Run run) {
            return !run.deliveries.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<Run>> transformer(Run state) {
            return Combinators.combine(recentDeliveries(state), delaysMs())
                    .as((i, delay) -> Transformer.mutate("nack delivery " + i + ", retry in " + delay + " ms", run -> {
                        Delivery<String> d = run.deliveries.get(i);
                        assertThat(d.nack(Duration.ofMillis(delay))).as("nack of %s", d)
                                .isEqualTo(run.model.nack(d.id(), run.tokens.get(i), delay));
                    }));
        }
    }

    private static final class Release implements Action.Dependent<Run> {
        @Override
        public boolean precondition(Run run) {
            return !run.deliveries.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<Run>> transformer(Run state) {
            return recentDeliveries(state).map(i ->
                    Transformer.mutate("release delivery " + i, run -> {
                        Delivery<String> d = run.deliveries.get(i);
                        assertThat(d.release()).as("release of %s", d)
                                .isEqualTo(run.model.release(d.id(), run.tokens.get(i)));
                    }));
        }
    }

    private static final class DeadLetterAction implements Action.Dependent<Run> {
        @Override
        public boolean precondition(Run run) {
            return !run.deliveries.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<Run>> transformer(Run state) {
            return recentDeliveries(state).map(i ->
                    Transformer.mutate("dead-letter delivery " + i, run -> {
                        Delivery<String> d = run.deliveries.get(i);
                        assertThat(d.deadLetter("model")).as("deadLetter of %s", d)
                                .isEqualTo(run.model.deadLetter(d.id(), run.tokens.get(i)));
                    }));
        }
    }

    private final class Extend implements Action.Dependent<Run> {
        @Override
        public boolean precondition(Run run) {
            return !run.deliveries.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<Run>> transformer(Run state) {
            Arbitrary<Long> visibilities = timeOnTicker ? Arbitraries.of(1L, 10L, 30L, 60L) : Arbitraries.of(HOUR_MS);
            return Combinators.combine(recentDeliveries(state), visibilities)
                    .as((i, ms) -> Transformer.mutate("extend delivery " + i + " by " + ms + " ms", run -> {
                        Delivery<String> d = run.deliveries.get(i);
                        assertThat(d.extend(Duration.ofMillis(ms))).as("extend of %s", d)
                                .isEqualTo(run.model.extend(d.id(), run.tokens.get(i), ms));
                    }));
        }
    }

    private static final class PassTime implements Action.Independent<Run> {
        @Override
        public Arbitrary<Transformer<Run>> transformer() {
            // Steps that land just before, on and just after the short delays and the 30 ms visibility timeout.
            return Arbitraries.of(1L, 2L, 9L, 10L, 29L, 30L, 31L).map(ms -> Transformer.mutate("pass " + ms + " ms",
                    run -> {
                        run.ticker.advance(ms, TimeUnit.MILLISECONDS);
                        run.model.advance(ms);
                    }));
        }
    }
}
