package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import io.clockwork.zookeeper.NodeTableProperties.Key;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random insert/remove/set/lookup sequences on {@link KeyStateTable} against a {@link HashMap}. Keys are equal but
 * not identical to the ones inserted (so lookups go through {@code equals}), their hash codes collide on purpose
 * (the keys of {@link NodeTableProperties}), and sequences are long enough to grow, shrink and shed tombstones
 * several times. The log of fresh keys must give exactly the keys inserted since the last drain and still present,
 * at their current place, across rebuilds.
 */
class KeyStateTableProperties {

    record Op(int kind, int key, long state) { }

    @Provide
    Arbitrary<List<Op>> ops() {
        // kinds: 0-1 insert, 2-3 remove, 4 set state by CAS, 5 lookup, 6 drain the fresh keys
        return Combinators.combine(Arbitraries.integers().between(0, 6), Arbitraries.integers().between(0, 800),
                Arbitraries.longs().between(0, Long.MAX_VALUE)).as(Op::new).list().ofMaxSize(3000);
    }

    @Provide
    Arbitrary<Integer> hashRanges() {
        return Arbitraries.of(1, 7, 1000, Integer.MAX_VALUE);
    }

    @Property(tries = 200)
    void behavesLikeAHashMap(@ForAll("ops") List<Op> ops, @ForAll("hashRanges") int hashRange) {
        KeyStateTable table = new KeyStateTable();
        Map<Key, Long> model = new HashMap<>();
        Set<Key> fresh = new HashSet<>();
        for (Op op : ops) {
            Key key = new Key(op.key(), Math.floorMod(op.key() * 31, hashRange));
            int hash = KeyStateTable.hash(key);
            switch (op.kind()) {
                case 0, 1 -> {
                    boolean inserted = model.putIfAbsent(key, op.state()) == null;
                    assertThat(table.insert(key, hash, op.state())).isEqualTo(inserted);
                    if (inserted) {
                        fresh.add(key);
                    }
                }
                case 2, 3 -> {
                    fresh.remove(key);
                    Long previous = model.remove(key);
                    assertThat(table.remove(new Key(key.id(), key.hash()), hash))
                            .isEqualTo(previous == null ? KeyStateTable.REMOVED : previous);
                }
                case 4 -> {
                    KeyStateTable.Slots a = table.slots(hash);
                    int i = KeyStateTable.indexOf(a, key, hash);
                    assertThat(i >= 0).isEqualTo(model.containsKey(key));
                    if (i >= 0) {
                        assertThat(KeyStateTable.cas(a, i, model.get(key), op.state())).isTrue();
                        model.put(key, op.state());
                    }
                }
                case 6 -> {
                    Map<Object, Long> drained = new HashMap<>();
                    table.drainFresh((a, i, k, h) -> {
                        assertThat(h).isEqualTo(KeyStateTable.hash(k));
                        assertThat(drained.put(k, KeyStateTable.state(a, i))).as("visited twice: %s", k).isNull();
                    });
                    Map<Key, Long> expected = new HashMap<>();
                    fresh.forEach(f -> expected.put(f, model.get(f)));
                    assertThat(drained).isEqualTo(expected);
                    fresh.clear();
                    assertThat(table.freshCount()).isZero();
                }
                default -> {
                    KeyStateTable.Slots a = table.slots(hash);
                    int i = KeyStateTable.indexOf(a, new Key(key.id(), key.hash()), hash);
                    assertThat(i >= 0 ? (Long) KeyStateTable.state(a, i) : null).isEqualTo(model.get(key));
                }
            }
            assertThat(table.size()).isEqualTo(model.size());
        }
        Map<Object, Long> visited = new HashMap<>();
        table.forEach(visited::put);
        assertThat(visited).isEqualTo(model);
    }
}
