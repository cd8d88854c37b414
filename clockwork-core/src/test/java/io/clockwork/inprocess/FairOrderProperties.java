package io.clockwork.inprocess;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.time.ManualTicker;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-process queue's delivery order against a simple model: the highest priority that has due messages first;
 * within it, groups in a weighted round robin (a group joins last in the current round, and holds the turn for its
 * weight of deliveries or until it runs out); within a group, by due time then offer order. Random offers (priority,
 * group, delay), polls, acks and steps of time on a {@link ManualTicker}.
 */
class FairOrderProperties {

    private static final List<String> GROUPS = java.util.Arrays.asList(null, "a", "b", "c");
    private static final Map<String, Integer> WEIGHTS = Map.of("a", 2);

    /** One step of a run: an offer, a poll, or time passing. */
    sealed interface Op permits Offer, Poll, Tick, Ack {
    }

    record Offer(int priority, String group, int delayMs) implements Op {
    }

    record Poll(int max, boolean ack) implements Op {
    }

    record Tick() implements Op {
    }

    /** Acks the oldest delivery held (polled without an ack), if any. */
    record Ack() implements Op {
    }

    @Provide
    Arbitrary<List<Op>> runs() {
        Arbitrary<Op> offer = Combinators.combine(Arbitraries.of(-1, 0, 0, 3), Arbitraries.of(GROUPS),
                Arbitraries.of(0, 0, 1, 2)).as(Offer::new);
        Arbitrary<Op> poll = Combinators.combine(Arbitraries.integers().between(1, 4), Arbitraries.of(true, false))
                .as(Poll::new);
        Arbitrary<Op> tick = Arbitraries.just(new Tick());
        Arbitrary<Op> ack = Arbitraries.just(new Ack());
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, offer), net.jqwik.api.Tuple.of(3, poll),
                net.jqwik.api.Tuple.of(1, tick), net.jqwik.api.Tuple.of(2, ack)).list().ofMaxSize(80);
    }

    @Property(tries = 400)
    void deliveriesFollowPriorityThenWeightedRoundRobinThenDueOrder(@ForAll("runs") List<Op> run) throws Exception {
        check(run, 0);
    }

    @Property(tries = 400)
    void groupsAtTheirInFlightLimitLeaveTheRoundRobinAndRejoinLast(@ForAll("runs") List<Op> run) throws Exception {
        check(run, 2);
    }

    private static void check(List<Op> run, int maxInFlightPerGroup) throws Exception {
        ManualTicker ticker = new ManualTicker();
        InMemoryDelayedQueue.Builder<String> builder = InMemoryDelayedQueue.<String>builder().ticker(ticker);
        WEIGHTS.forEach(builder::groupWeight);
        if (maxInFlightPerGroup > 0) {
            builder.maxInFlightPerGroup(maxInFlightPerGroup);
        }
        Model model = new Model(maxInFlightPerGroup);
        Deque<Delivery<String>> held = new ArrayDeque<>();
        try (DelayedQueue<String> q = builder.build()) {
            int n = 0;
            for (int step = 0; step < run.size(); step++) {
                Op op = run.get(step);
                if (op instanceof Offer o) {
                    String value = "m" + n++;
                    Message<String> m = Message.of(value).priority(o.priority()).delay(Duration.ofMillis(o.delayMs()));
                    q.offer(o.group() == null ? m : m.group(o.group()));
                    model.offer(value, o.priority(), o.group(), o.delayMs());
                } else if (op instanceof Poll p) {
                    List<String> got = new ArrayList<>();
                    for (Delivery<String> d : q.poll(p.max(), Duration.ZERO)) {
                        got.add(d.value());
                        if (p.ack()) {
                            assertThat(d.ack()).isTrue();
                        } else {
                            held.add(d);
                        }
                    }
                    assertThat(got).as("after %s", run.subList(0, step + 1)).isEqualTo(model.poll(p.max(), p.ack()));
                } else if (op instanceof Ack) {
                    Delivery<String> d = held.pollFirst();
                    if (d != null) {
                        assertThat(d.ack()).isTrue();
                        model.ack(d.value());
                    }
                } else {
                    ticker.advance(Duration.ofMillis(1));
                    model.now++;
                }
            }
        }
    }

    /** The reference: lists and a deque per priority, O(n) where the queue is O(log n). */
    private static final class Model {
        record Msg(String value, int priority, String group, long due, long seq) {
        }

        private static final Comparator<Msg> DUE_ORDER =
                Comparator.comparingLong(Msg::due).thenComparingLong(Msg::seq);
        private static final String UNNAMED = "(unnamed)";

        long now;
        private final int maxInFlight;
        private long seq;
        private final List<Msg> delayed = new ArrayList<>();
        /** Priority, highest first, to its level. */
        private final TreeMap<Integer, Level> levels = new TreeMap<>(Comparator.reverseOrder());
        private final Map<String, Integer> inFlight = new HashMap<>();
        private final Map<String, String> groupOf = new HashMap<>();

        private static final class Level {
            final Map<String, TreeSet<Msg>> lanes = new HashMap<>();
            /** The groups with ready messages that no limit holds back; the head's turn, {@link #credit} left. */
            final Deque<String> ring = new ArrayDeque<>();
            int credit;

            void join(String group) {
                if (ring.isEmpty()) {
                    credit = weight(group);
                }
                ring.addLast(group);
            }

            void leave(String group) {
                boolean head = group.equals(ring.peekFirst());
                ring.remove(group);
                if (head && !ring.isEmpty()) {
                    credit = weight(ring.peekFirst());
                }
            }
        }

        Model(int maxInFlight) {
            this.maxInFlight = maxInFlight;
        }

        void offer(String value, int priority, String group, int delayMs) {
            promote();
            Msg m = new Msg(value, priority, group == null ? UNNAMED : group, now + delayMs, seq++);
            if (delayMs == 0) {
                ready(m);
            } else {
                delayed.add(m);
            }
        }

        List<String> poll(int max, boolean acked) {
            promote();
            List<String> got = new ArrayList<>();
            while (got.size() < max) {
                Level level = levels.values().stream().filter(l -> !l.ring.isEmpty()).findFirst().orElse(null);
                if (level == null) {
                    break;
                }
                String group = level.ring.peekFirst();
                TreeSet<Msg> lane = level.lanes.get(group);
                Msg m = lane.pollFirst();
                got.add(m.value());
                level.credit--;
                if (lane.isEmpty()) {
                    level.lanes.remove(group);
                    level.leave(group);
                    if (level.lanes.isEmpty()) {
                        levels.values().remove(level);
                    }
                } else if (level.credit == 0) {
                    level.ring.addLast(level.ring.pollFirst());
                    level.credit = weight(level.ring.peekFirst());
                }
                hold(m); // a batch's deliveries are all in flight until the batch is taken, acked or not
            }
            if (acked) {
                got.forEach(this::ack);
            }
            return got;
        }

        void ack(String value) {
            promote(); // as every queue operation, an ack first promotes what fell due
            String group = groupOf.remove(value);
            if (group.equals(UNNAMED)) {
                return;
            }
            int was = inFlight.merge(group, -1, Integer::sum) + 1;
            if (maxInFlight > 0 && was == maxInFlight) {
                for (Level level : levels.values()) {
                    if (level.lanes.containsKey(group)) {
                        level.join(group);
                    }
                }
            }
        }

        private void hold(Msg m) {
            groupOf.put(m.value(), m.group());
            if (m.group().equals(UNNAMED)) {
                return;
            }
            int now = inFlight.merge(m.group(), 1, Integer::sum);
            if (maxInFlight > 0 && now == maxInFlight) {
                for (Level level : levels.values()) {
                    level.leave(m.group());
                }
            }
        }

        private boolean blocked(String group) {
            return maxInFlight > 0 && !group.equals(UNNAMED) && inFlight.getOrDefault(group, 0) >= maxInFlight;
        }

        private void promote() {
            delayed.stream().filter(m -> m.due() <= now).sorted(DUE_ORDER).forEach(this::ready);
            delayed.removeIf(m -> m.due() <= now);
        }

        private void ready(Msg m) {
            Level level = levels.computeIfAbsent(m.priority(), p -> new Level());
            TreeSet<Msg> lane = level.lanes.get(m.group());
            if (lane == null) {
                lane = new TreeSet<>(DUE_ORDER);
                level.lanes.put(m.group(), lane);
                if (!blocked(m.group())) {
                    level.join(m.group());
                }
            }
            lane.add(m);
        }

        private static int weight(String group) {
            return WEIGHTS.getOrDefault(group, 1);
        }
    }
}
