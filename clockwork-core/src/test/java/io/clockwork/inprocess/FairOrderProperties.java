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
    sealed interface Op permits Offer, Poll, Tick {
    }

    record Offer(int priority, String group, int delayMs) implements Op {
    }

    record Poll(int max, boolean ack) implements Op {
    }

    record Tick() implements Op {
    }

    @Provide
    Arbitrary<List<Op>> runs() {
        Arbitrary<Op> offer = Combinators.combine(Arbitraries.of(-1, 0, 0, 3), Arbitraries.of(GROUPS),
                Arbitraries.of(0, 0, 1, 2)).as(Offer::new);
        Arbitrary<Op> poll = Combinators.combine(Arbitraries.integers().between(1, 4), Arbitraries.of(true, false))
                .as(Poll::new);
        Arbitrary<Op> tick = Arbitraries.just(new Tick());
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, offer), net.jqwik.api.Tuple.of(3, poll),
                net.jqwik.api.Tuple.of(1, tick)).list().ofMaxSize(80);
    }

    @Property(tries = 400)
    void deliveriesFollowPriorityThenWeightedRoundRobinThenDueOrder(@ForAll("runs") List<Op> run) throws Exception {
        ManualTicker ticker = new ManualTicker();
        InMemoryDelayedQueue.Builder<String> builder = InMemoryDelayedQueue.<String>builder().ticker(ticker);
        WEIGHTS.forEach(builder::groupWeight);
        Model model = new Model();
        try (DelayedQueue<String> q = builder.build()) {
            int n = 0;
            for (Op op : run) {
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
                            d.ack();
                        }
                    }
                    assertThat(got).as("after %s", run.subList(0, run.indexOf(op) + 1))
                            .isEqualTo(model.poll(p.max()));
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

        long now;
        private long seq;
        private final List<Msg> delayed = new ArrayList<>();
        /** Priority, highest first, to its level. */
        private final TreeMap<Integer, Level> levels = new TreeMap<>(Comparator.reverseOrder());

        private static final class Level {
            final Map<String, TreeSet<Msg>> lanes = new HashMap<>();
            /** The groups with ready messages; the head's turn, with {@link #credit} deliveries left. */
            final Deque<String> ring = new ArrayDeque<>();
            int credit;
        }

        void offer(String value, int priority, String group, int delayMs) {
            promote();
            Msg m = new Msg(value, priority, group, now + delayMs, seq++);
            if (delayMs == 0) {
                ready(m);
            } else {
                delayed.add(m);
            }
        }

        List<String> poll(int max) {
            promote();
            List<String> got = new ArrayList<>();
            while (got.size() < max && !levels.isEmpty()) {
                Level level = levels.firstEntry().getValue();
                String group = level.ring.peekFirst();
                TreeSet<Msg> lane = level.lanes.get(String.valueOf(group));
                got.add(lane.pollFirst().value());
                level.credit--;
                if (lane.isEmpty()) {
                    level.lanes.remove(String.valueOf(group));
                    level.ring.pollFirst();
                    level.credit = level.ring.isEmpty() ? 0 : weight(level.ring.peekFirst());
                } else if (level.credit == 0) {
                    level.ring.addLast(level.ring.pollFirst());
                    level.credit = weight(level.ring.peekFirst());
                }
                if (level.ring.isEmpty()) {
                    levels.values().remove(level);
                }
            }
            return got;
        }

        private void promote() {
            delayed.stream().filter(m -> m.due() <= now).sorted(DUE_ORDER).forEach(this::ready);
            delayed.removeIf(m -> m.due() <= now);
        }

        private void ready(Msg m) {
            Level level = levels.computeIfAbsent(m.priority(), p -> new Level());
            TreeSet<Msg> lane = level.lanes.get(String.valueOf(m.group()));
            if (lane == null) {
                lane = new TreeSet<>(DUE_ORDER);
                level.lanes.put(String.valueOf(m.group()), lane);
                if (level.ring.isEmpty()) {
                    level.credit = weight(m.group());
                }
                level.ring.addLast(m.group() == null ? "null" : m.group());
            }
            lane.add(m);
        }

        private static int weight(String group) {
            return group == null ? 1 : WEIGHTS.getOrDefault(group, 1);
        }
    }
}
