package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.testing.queue.DelayedQueueModel;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-process {@link QueueStore} against {@link DelayedQueueModel}, driven directly: one thread, no lock, and the
 * time a plain {@code now} the property moves. Each step is one store operation (offers of generated and caller ids
 * with every conflict policy, cancels, reschedules, polls, acks, nacks, releases, kills, extends, dead-letter requeues
 * and purges, passing time), preceded by the sweep every operation starts with ({@link QueueStore#advance}); its result
 * must be the model's, and after every step the store's stats and dead letters must be the model's. The shell's own
 * check, {@link InMemoryDelayedQueueProperties}, runs the same model against the public queue.
 */
class QueueStoreProperties {

    private static final int MAX_ATTEMPTS = 2;
    private static final long VISIBILITY_MS = 30;
    private static final long HOUR_MS = TimeUnit.HOURS.toMillis(1);
    private static final List<String> CALLER_IDS = List.of("a", "b", "c", "d", "\u00e9t\u00e9");
    private static final List<String> VALUES = List.of("", "x", "y", "z\u00e9", "\u4e2dx");
    private static final long[] DELAYS_MS = {-5, 0, 1, 2, 10, 30, HOUR_MS};
    private static final long[] EXTENSIONS_MS = {1, 10, 30, 60};
    private static final long[] STEPS_MS = {1, 2, 9, 10, 29, 30, 31};
    /** The step kinds, each as often as its weight. */
    private static final Kind[] KINDS = weighted();

    /** What a step does; its weight is how often it is drawn. */
    enum Kind {
        OFFER_GENERATED(3), OFFER_WITH_ID(4), OFFER_MESSAGE(3), CANCEL(2), RESCHEDULE(2), POLL(4), ACK(3), NACK(3),
        RELEASE(1), KILL(1), EXTEND(2), DEAD_REQUEUE(1), DEAD_PURGE(1), PASS_TIME(3);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    /** One step: its kind and three choices it reads as it needs (an id, a value, a delay, a delivery...). */
    record Step(Kind kind, int a, int b, int c) {
        @Override
        public String toString() {
            return kind + "(" + a + ", " + b + ", " + c + ")";
        }
    }

    @Property(tries = 500)
    void storeAgreesWithTheModelAfterEveryOperation(@ForAll("runs") List<Step> steps) {
        Run run = new Run();
        for (Step step : steps) {
            run.apply(step);
            run.checkState();
        }
    }

    @Provide
    Arbitrary<List<Step>> runs() {
        Arbitrary<Integer> choice = Arbitraries.integers().between(0, 3 * DELAYS_MS.length - 1);
        return Combinators.combine(Arbitraries.integers().between(0, KINDS.length - 1), choice, choice, choice)
                .as((k, a, b, c) -> new Step(KINDS[k], a, b, c)).list().ofMaxSize(80);
    }

    private static Kind[] weighted() {
        List<Kind> kinds = new ArrayList<>();
        for (Kind k : Kind.values()) {
            for (int i = 0; i < k.weight; i++) {
                kinds.add(k);
            }
        }
        return kinds.toArray(new Kind[0]);
    }

    /** A delivery the store made, with the model's token for it. */
    private record Taken(Item item, long token, long modelToken) {
    }

    /** One run's store and model, at one {@code now}. Not thread-safe. */
    private static final class Run {
        private final QueueSupport<String> support = new QueueSupport<>(QueueOptions.<String>builder()
                .name("store-model").codec(Codec.string()).visibilityTimeout(Duration.ofMillis(VISIBILITY_MS))
                .maxAttempts(MAX_ATTEMPTS).build());
        /** Near the end of the long range, as the queue's own model check starts its ticker: wheel time wraps. */
        private long now = Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(50);
        private final QueueStore store = new QueueStore(support, now, new QueueStore.Wakeups() {
            @Override
            public void one() {
            }

            @Override
            public void all() {
            }
        });
        private final DelayedQueueModel model = new DelayedQueueModel(VISIBILITY_MS, MAX_ATTEMPTS);
        private final List<Taken> deliveries = new ArrayList<>();

        void apply(Step step) {
            store.advance(now, Integer.MAX_VALUE); // the sweep every operation starts with
            switch (step.kind()) {
                case OFFER_GENERATED -> {
                    String value = VALUES.get(step.a() % VALUES.size());
                    long delay = DELAYS_MS[step.b() % DELAYS_MS.length];
                    Item m = store.ids().register(null, bytes(value), Map.of(), due(delay));
                    assertThat(m).as("a generated id is never taken").isNotNull();
                    store.offer(m, now);
                    model.offerGenerated(m.id, value, delay);
                }
                case OFFER_WITH_ID -> {
                    String id = CALLER_IDS.get(step.a() % CALLER_IDS.size());
                    String value = VALUES.get(step.b() % VALUES.size());
                    long delay = DELAYS_MS[step.c() % DELAYS_MS.length];
                    Item m = store.ids().register(id, bytes(value), Map.of(), due(delay));
                    assertThat(m != null).as("offer of %s added it (deduplication)", id)
                            .isEqualTo(model.offer(id, value, delay));
                    if (m != null) {
                        store.offer(m, now);
                    }
                }
                case OFFER_MESSAGE -> {
                    String id = CALLER_IDS.get(step.a() % CALLER_IDS.size());
                    String value = VALUES.get(step.b() % VALUES.size());
                    long delay = DELAYS_MS[step.c() % DELAYS_MS.length];
                    Message.Conflict policy = Message.Conflict.values()[step.c() / DELAYS_MS.length];
                    Offered offered = store.offer(id, bytes(value), Map.of("v", value), delayNanos(delay), policy,
                            now);
                    assertThat(offered).as("single-threaded, nothing frees an id meanwhile").isNotNull();
                    assertThat(offered.outcome()).as("outcome of offering %s with %s", id, policy)
                            .isEqualTo(model.offer(id, value, Map.of("v", value), delay, policy));
                }
                case CANCEL -> {
                    String id = offeredId(step.a());
                    Item m = store.ids().cancel(id);
                    if (m != null) {
                        store.cancel(m);
                    }
                    assertThat(m != null).as("cancel(%s)", id).isEqualTo(model.cancel(id));
                }
                case RESCHEDULE -> {
                    String id = offeredId(step.a());
                    long delay = DELAYS_MS[step.b() % DELAYS_MS.length];
                    assertThat(store.reschedule(id, delayNanos(delay), now)).as("reschedule(%s)", id)
                            .isEqualTo(model.reschedule(id, delay));
                }
                case POLL -> poll(1 + step.a() % 4);
                case ACK -> withDelivery(step, (t, id) -> assertThat(store.ack(t.item(), t.token()))
                        .as("ack of %s", id).isEqualTo(model.ack(id, t.modelToken())));
                case NACK -> withDelivery(step, (t, id) -> {
                    long delay = DELAYS_MS[step.b() % DELAYS_MS.length];
                    assertThat(store.nack(t.item(), t.token(), delayNanos(delay), null, now)).as("nack of %s", id)
                            .isEqualTo(model.nack(id, t.modelToken(), delay));
                });
                case RELEASE -> withDelivery(step, (t, id) -> assertThat(store.release(t.item(), t.token(), now))
                        .as("release of %s", id).isEqualTo(model.release(id, t.modelToken())));
                case KILL -> withDelivery(step, (t, id) -> assertThat(store.kill(t.item(), t.token(), "model", now))
                        .as("kill of %s", id).isEqualTo(model.deadLetter(id, t.modelToken())));
                case EXTEND -> withDelivery(step, (t, id) -> {
                    long ms = EXTENSIONS_MS[step.b() % EXTENSIONS_MS.length];
                    assertThat(store.extend(t.item(), t.token(), TimeUnit.MILLISECONDS.toNanos(ms), now))
                            .as("extend of %s", id).isEqualTo(model.extend(id, t.modelToken(), ms));
                });
                case DEAD_REQUEUE -> {
                    String id = offeredId(step.a());
                    assertThat(store.deadRequeue(id, now)).as("deadRequeue(%s)", id)
                            .isEqualTo(model.deadRequeue(id));
                }
                case DEAD_PURGE -> assertThat(store.deadPurge()).as("deadPurge").isEqualTo(model.deadPurge());
                case PASS_TIME -> {
                    long ms = STEPS_MS[step.a() % STEPS_MS.length];
                    now += TimeUnit.MILLISECONDS.toNanos(ms);
                    model.advance(ms);
                }
            }
        }

        private void poll(int max) {
            List<DelayedQueueModel.Message> expected = model.poll(max);
            List<String> got = new ArrayList<>();
            List<Taken> taken = new ArrayList<>();
            Item m;
            while (got.size() < max && (m = store.poll(now)) != null) {
                got.add(m.id + "=" + new String((byte[]) m.payload, StandardCharsets.UTF_8) + " #" + m.attempts + " "
                        + m.headers);
                taken.add(new Taken(m, m.token, 0));
            }
            assertThat(got).as("deliveries of poll(%d), in order", max).containsExactlyElementsOf(expected.stream()
                    .map(e -> e.id + "=" + e.value + " #" + e.attempts + " " + e.headers).toList());
            for (int i = 0; i < taken.size(); i++) {
                deliveries.add(new Taken(taken.get(i).item(), taken.get(i).token(), expected.get(i).token));
            }
        }

        /** Runs {@code check} on a delivery, mostly one of the latest (which may still hold its message). */
        private void withDelivery(Step step, BiConsumer<Taken, String> check) {
            if (!deliveries.isEmpty()) {
                Taken t = deliveries.get(Math.max(0, deliveries.size() - 1 - step.a()));
                check.accept(t, t.item().id);
            }
        }

        void checkState() {
            store.advance(now, Integer.MAX_VALUE);
            QueueStats stats = store.stats(now);
            assertThat(new long[] {stats.delayed(), stats.ready(), stats.inFlight(), stats.dead()})
                    .as("delayed, ready, in flight, dead of %s", model)
                    .containsExactly(model.count(DelayedQueueModel.State.DELAYED),
                            model.count(DelayedQueueModel.State.READY),
                            model.count(DelayedQueueModel.State.IN_FLIGHT),
                            model.count(DelayedQueueModel.State.DEAD));
            assertThat(stats.nextDueIn()).as("nextDueIn of %s", model)
                    .isEqualTo(model.nextDueInMs().map(Duration::ofMillis));
            List<DeadLetter> letters = store.deadList(100, now);
            assertThat(letters.stream().map(l -> l.id() + " after " + l.attempts() + ": "
                    + new String(l.payload(), StandardCharsets.UTF_8)).toList())
                    .as("dead letters, oldest first")
                    .containsExactlyElementsOf(model.deadLetters().stream()
                            .map(e -> e.id + " after " + e.attempts + ": " + e.value).toList());
        }

        private String offeredId(int index) {
            List<String> ids = model.everOffered();
            return index < ids.size() ? ids.get(ids.size() - 1 - index) : "never-offered";
        }

        private long due(long delayMs) {
            return store.due(now, delayNanos(delayMs));
        }

        private long delayNanos(long delayMs) {
            return support.delay(Duration.ofMillis(delayMs)).nanos();
        }

        private static byte[] bytes(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return model.toString();
        }
    }
}
