package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Random put/remove/get/rotate sequences against a model of Storm's algorithm: a list of per-generation maps. */
class RotatingMapProperties {

    record Op(int kind, int key, int value) { }

    /** Storm's algorithm, written plainly: O(numBuckets) and single-threaded, but obviously right. */
    static final class Model {
        final LinkedList<Map<Integer, Integer>> buckets = new LinkedList<>();

        Model(int numBuckets) {
            for (int i = 0; i < numBuckets; i++) {
                buckets.add(new HashMap<>());
            }
        }

        Map<Integer, Integer> rotate() {
            Map<Integer, Integer> dead = buckets.removeLast();
            buckets.addFirst(new HashMap<>());
            return dead;
        }

        void put(int key, int value) {
            buckets.getFirst().put(key, value);
            buckets.stream().skip(1).forEach(b -> b.remove(key));
        }

        Integer get(int key) {
            return buckets.stream().filter(b -> b.containsKey(key)).findFirst().map(b -> b.get(key)).orElse(null);
        }

        Integer remove(int key) {
            Integer value = get(key);
            buckets.forEach(b -> b.remove(key));
            return value;
        }

        Set<Integer> keys() {
            Set<Integer> keys = new HashSet<>();
            buckets.forEach(b -> keys.addAll(b.keySet()));
            return keys;
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        return Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 20),
                Arbitraries.integers()).as(Op::new).list().ofMaxSize(300);
    }

    @Property(tries = 300)
    void mapBehavesLikeStormsAlgorithm(@ForAll("ops") List<Op> ops, @ForAll @IntRange(min = 2, max = 5) int buckets) {
        List<Map.Entry<Integer, Integer>> reported = new ArrayList<>();
        RotatingMap<Integer, Integer> map = new RotatingMap<>(buckets, (k, v) -> reported.add(Map.entry(k, v)));
        Model model = new Model(buckets);
        for (Op op : ops) {
            switch (op.kind()) {
                case 0, 1 -> {
                    map.put(op.key(), op.value());
                    model.put(op.key(), op.value());
                }
                case 2 -> assertThat(map.remove(op.key())).isEqualTo(model.remove(op.key()));
                case 3 -> assertThat(map.get(op.key())).isEqualTo(model.get(op.key()));
                default -> {
                    reported.clear();
                    Map<Integer, Integer> dead = model.rotate();
                    assertThat(map.rotate()).isEqualTo(dead);
                    assertThat(reported).containsExactlyInAnyOrderElementsOf(dead.entrySet());
                }
            }
            assertThat(map.size()).isEqualTo(model.keys().size());
            assertThat(map.keyset()).isEqualTo(model.keys());
            assertThat(map.containsKey(op.key())).isEqualTo(model.get(op.key()) != null);
        }
    }
}
