package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.time.ManualTicker;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random update/remove/advance/poll sequences against a reference model of ZooKeeper's semantics: a map from
 * element to rounded expiry, plus the set of polled elements that the queue still knows. Each sequence runs with
 * polls that look at each due filing, with polls that re-file every element (the expiry-storm path), and with the
 * queue's own choice between them.
 */
class ExpiryQueueProperties {

    record Op(int kind, int elem, int amount) { }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> elems = Arbitraries.integers().between(0, 15);
        return Combinators.combine(Arbitraries.integers().between(0, 3), elems,
                Arbitraries.integers().between(1, 5000)).as(Op::new).list().ofMaxSize(200);
    }

    @Provide
    Arbitrary<Long> origins() {
        return Arbitraries.of(0L, Long.MAX_VALUE - 2_000_000_000L, Long.MIN_VALUE, 123_456_789L);
    }

    @Provide
    Arbitrary<Double> stormShares() {
        return Arbitraries.of(0.0, 0.5, Double.POSITIVE_INFINITY);
    }

    @Property(tries = 500)
    void queueBehavesLikeTheModel(@ForAll("ops") List<Op> ops, @ForAll("origins") long origin,
            @ForAll("intervals") int interval, @ForAll("stormShares") double stormShare) {
        ManualTicker ticker = new ManualTicker(origin);
        ExpiryQueue<Integer> queue = new ExpiryQueue<>(interval, ticker);
        queue.stormShare(stormShare);
        Map<Integer, Long> live = new HashMap<>();
        Map<Integer, Long> polled = new HashMap<>();
        long now = Math.floorDiv(origin, 1_000_000L); // the ticker's milliseconds, continued past a wrap
        long next = Math.floorDiv(now, interval) * interval + interval;
        for (Op op : ops) {
            switch (op.kind()) {
                case 0 -> {
                    long expiry = Math.floorDiv(now + op.amount(), interval) * interval + interval;
                    Long expected = Long.valueOf(expiry).equals(live.get(op.elem())) ? null : expiry;
                    assertThat(queue.update(op.elem(), op.amount())).as("update %s", op).isEqualTo(expected);
                    live.put(op.elem(), expiry);
                    polled.remove(op.elem());
                }
                case 1 -> {
                    Long expected = live.containsKey(op.elem()) ? live.remove(op.elem()) : polled.remove(op.elem());
                    assertThat(queue.remove(op.elem())).as("remove %s", op).isEqualTo(expected);
                }
                case 2 -> {
                    ticker.advance(op.amount(), TimeUnit.MILLISECONDS);
                    now += op.amount();
                }
                default -> {
                    Set<Integer> expected = new HashSet<>();
                    if (now >= next) {
                        for (Map.Entry<Integer, Long> e : Map.copyOf(live).entrySet()) {
                            if (e.getValue() <= now) {
                                expected.add(e.getKey());
                                polled.put(e.getKey(), live.remove(e.getKey()));
                            }
                        }
                        next = Math.floorDiv(now, interval) * interval + interval;
                    }
                    assertThat(queue.poll()).as("poll at %d", now).isEqualTo(expected);
                }
            }
            assertThat(queue.getWaitTime()).isEqualTo(Math.max(0, next - now));
            Map<Long, Set<Integer>> buckets = new TreeMap<>();
            live.forEach((e, t) -> buckets.computeIfAbsent(t, x -> new HashSet<>()).add(e));
            assertThat(queue.getExpiryMap()).isEqualTo(buckets);
        }
    }

    @Provide
    Arbitrary<Integer> intervals() {
        return Arbitraries.of(1, 7, 1000);
    }
}
