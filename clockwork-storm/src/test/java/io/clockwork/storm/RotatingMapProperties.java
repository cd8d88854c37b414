package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.AbstractMap;
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

/**
 * Random put/remove/get/rotate sequences, null keys included, against a model of Storm's algorithm: a list of
 * per-generation maps.
 */
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

        void put(Integer key, Integer value) {
            buckets.getFirst().put(key, value);
            buckets.stream().skip(1).forEach(b -> b.remove(key));
        }

        Integer get(Integer key) {
            return buckets.stream().filter(b -> b.containsKey(key)).findFirst().map(b -> b.get(key)).orElse(null);
        }

        Integer remove(Integer key) {
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
        RotatingMap<Integer, Integer> map = new RotatingMap<>(buckets,
                (k, v) -> reported.add(new AbstractMap.SimpleEntry<>(k, v))); // Map.entry refuses a null key
        Model model = new Model(buckets);
        for (Op op : ops) {
            Integer key = op.key() == 20 ? null : op.key(); // Storm's HashMaps take a null key
            switch (op.kind()) {
                case 0, 1 -> {
                    map.put(key, op.value());
                    model.put(key, op.value());
                }
                case 2 -> assertThat(map.remove(key)).isEqualTo(model.remove(key));
                case 3 -> assertThat(map.get(key)).isEqualTo(model.get(key));
                default -> {
                    reported.clear();
                    Map<Integer, Integer> dead = model.rotate();
                    assertThat(map.rotate()).isEqualTo(dead);
                    assertThat(reported).containsExactlyInAnyOrderElementsOf(dead.entrySet());
                }
            }
            assertThat(map.size()).isEqualTo(model.keys().size());
            assertThat(map.keyset()).isEqualTo(model.keys());
            assertThat(map.containsKey(key)).isEqualTo(model.keys().contains(key));
            assertThat(map.peekOldestBucket()).isEqualTo(model.buckets.getLast());
        }
    }
}
