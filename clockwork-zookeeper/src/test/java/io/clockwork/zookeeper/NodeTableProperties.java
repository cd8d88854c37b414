package io.clockwork.zookeeper;

import io.clockwork.engine.NodeTable;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random insert/remove/lookup sequences on {@link NodeTable}, object- and {@code long}-keyed, against a
 * {@link HashMap}. Keys collide on purpose (their hash codes are drawn from a small range) and sequences are long
 * enough to double the table several times.
 */
class NodeTableProperties {

    record Op(int kind, int key) { }

    /** An object key whose hash code is chosen, so that several keys share a bucket. */
    record Key(int id, int hash) {
        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).id == id;
        }
    }

    /** A node keyed by an object. */
    static final class ObjectNode extends ExpiryNode {
        final Object key;

        ObjectNode(Object key) {
            super(1L, NodeTable.hash(key.hashCode()));
            this.key = key;
        }

        @Override
        boolean hasKey(Object k) {
            return k.equals(key);
        }

        @Override
        boolean sameKey(ExpiryNode other) {
            return other.hasKey(key);
        }
    }

    /** A node keyed by a {@code long}. */
    static final class LongNode extends ExpiryNode {
        final long key;

        LongNode(long key) {
            super(1L, NodeTable.hash(key));
            this.key = key;
        }

        @Override
        boolean hasKey(long k) {
            return k == key;
        }

        @Override
        boolean sameKey(ExpiryNode other) {
            return other.hasKey(key);
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        // kinds: 0-1 insert, 2 remove, 3 lookup; inserts weigh double so that the table grows
        return Combinators.combine(Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 600))
                .as(Op::new).list().ofMaxSize(1500);
    }

    @Property(tries = 200)
    void objectKeyedTableBehavesLikeAHashMap(@ForAll("ops") List<Op> ops, @ForAll("hashRanges") int hashRange) {
        NodeTable<ObjectNode> table = new ExpiryNodeTable<>();
        Map<Key, ObjectNode> model = new HashMap<>();
        int largest = 0;
        for (Op op : ops) {
            Key key = new Key(op.key(), Math.floorMod(op.key() * 0x9E3779B9, hashRange));
            int hash = NodeTable.hash(key.hashCode());
            switch (op.kind()) {
                case 0, 1 -> {
                    ObjectNode node = new ObjectNode(key);
                    ObjectNode present = table.putIfAbsent(node);
                    assertThat(present).as("putIfAbsent %s", op).isSameAs(model.get(key));
                    model.putIfAbsent(key, node);
                }
                case 2 -> {
                    ObjectNode node = table.get(key, hash);
                    assertThat(node).as("get before remove %s", op).isSameAs(model.get(key));
                    if (node != null) {
                        assertThat(table.remove(node)).isTrue();
                        assertThat(table.remove(node)).as("second remove").isFalse();
                        model.remove(key);
                    }
                }
                default -> assertThat(table.get(key, hash)).as("get %s", op).isSameAs(model.get(key));
            }
            assertThat(table.size()).isEqualTo(model.size());
            largest = Math.max(largest, model.size());
        }
        Map<Object, ExpiryNode> seen = new HashMap<>();
        table.forEach(n -> assertThat(seen.put(n.key, n)).as("visited twice: %s", n.key).isNull());
        assertThat(seen).isEqualTo(model);
        // Colliding hashes overfill one stripe, but the table grows only while half full: no runaway growth.
        assertThat(table.capacity()).as("capacity for at most %d keys", largest)
                .isLessThanOrEqualTo(Math.max(64, 4 * largest));
    }

    @Property(tries = 200)
    void longKeyedTableBehavesLikeAHashMap(@ForAll("ops") List<Op> ops, @ForAll("strides") long stride) {
        NodeTable<LongNode> table = new ExpiryNodeTable<>();
        Map<Long, LongNode> model = new HashMap<>();
        for (Op op : ops) {
            long key = op.key() * stride; // strides that are multiples of 2^32 make Long.hashCode collide often
            int hash = NodeTable.hash(key);
            switch (op.kind()) {
                case 0, 1 -> {
                    LongNode node = new LongNode(key);
                    assertThat(table.putIfAbsent(node)).as("putIfAbsent %s", op).isSameAs(model.get(key));
                    model.putIfAbsent(key, node);
                }
                case 2 -> {
                    LongNode node = table.get(key, hash);
                    assertThat(node).as("get before remove %s", op).isSameAs(model.get(key));
                    if (node != null) {
                        assertThat(table.remove(node)).isTrue();
                        model.remove(key);
                    }
                }
                default -> assertThat(table.get(key, hash)).as("get %s", op).isSameAs(model.get(key));
            }
        }
        assertThat(table.size()).isEqualTo(model.size());
        Map<Long, LongNode> seen = new HashMap<>();
        table.forEach(n -> seen.put(n.key, n));
        assertThat(seen).isEqualTo(model);
    }

    @Provide
    Arbitrary<Integer> hashRanges() {
        return Arbitraries.of(1, 7, 64, 1 << 20, Integer.MAX_VALUE);
    }

    @Provide
    Arbitrary<Long> strides() {
        return Arbitraries.of(1L, 1L << 32, (1L << 32) + 1, -1L, 0x9E3779B97F4A7C15L);
    }
}
