package io.clockwork.inprocess;

import io.clockwork.engine.WheelEntry;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReadyOrder} against a sorted set: random adds (mostly in order, some not), takes and removals give the same
 * messages in the same order; and messages added in order never reach the tree.
 */
class ReadyOrderProperties {

    /** A message stand-in: a due tick and a sequence number. */
    static final class Entry extends WheelEntry {
        final long tick;
        final long seq;

        Entry(long tick, long seq) {
            this.tick = tick;
            this.seq = seq;
        }

        @Override
        public String toString() {
            return tick + "/" + seq;
        }
    }

    private static final Comparator<Entry> ORDER =
            Comparator.<Entry>comparingLong(e -> e.tick).thenComparingLong(e -> e.seq);

    /** 0: add at the current tick or later; 1: add at an earlier tick; 2: take the first; 3: remove one. */
    @Provide
    Arbitrary<List<int[]>> ops() {
        Arbitrary<int[]> op = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0, 3).map(n -> new int[] {0, n})),
                Tuple.of(1, Arbitraries.integers().between(1, 5).map(n -> new int[] {1, n})),
                Tuple.of(3, Arbitraries.just(new int[] {2, 0})),
                Tuple.of(2, Arbitraries.integers().between(0, 1000).map(n -> new int[] {3, n})));
        return op.list().ofMaxSize(300);
    }

    @Property(tries = 500)
    void takesAndRemovalsAgreeWithASortedSet(@ForAll("ops") List<int[]> ops) {
        ReadyOrder<Entry> ready = new ReadyOrder<>(ORDER);
        TreeSet<Entry> model = new TreeSet<>(ORDER);
        List<Entry> present = new ArrayList<>();
        long tick = 10;
        long seq = 0;
        for (int[] op : ops) {
            switch (op[0]) {
                case 0, 1 -> {
                    tick = op[0] == 0 ? tick + op[1] : Math.max(0, tick - op[1]);
                    Entry e = new Entry(tick, ++seq);
                    ready.add(e);
                    model.add(e);
                    present.add(e);
                }
                case 2 -> {
                    Entry taken = ready.pollFirst();
                    assertThat(taken).isSameAs(model.pollFirst());
                    present.remove(taken);
                }
                default -> {
                    if (!present.isEmpty()) {
                        Entry e = present.remove(op[1] % present.size());
                        ready.remove(e);
                        model.remove(e);
                    }
                }
            }
            assertThat(ready.size()).isEqualTo(model.size());
            assertThat(ready.isEmpty()).isEqualTo(model.isEmpty());
        }
        List<Entry> drained = new ArrayList<>();
        for (Entry e = ready.pollFirst(); e != null; e = ready.pollFirst()) {
            drained.add(e);
        }
        assertThat(drained).containsExactlyElementsOf(model);
    }

    @Property(tries = 100)
    void messagesAddedInOrderNeverReachTheTree(@ForAll @IntRange(min = 1, max = 2000) int count,
                                               @ForAll @IntRange(min = 1, max = 50) int perTick) {
        ReadyOrder<Entry> ready = new ReadyOrder<>(ORDER);
        for (int i = 0; i < count; i++) {
            ready.add(new Entry(i / perTick, i));
            if (i % 7 == 3) {
                ready.pollFirst();
            }
        }
        assertThat(ready.outOfOrder()).isZero();
        long previous = -1;
        for (Entry e = ready.pollFirst(); e != null; e = ready.pollFirst()) {
            assertThat(e.seq).isGreaterThan(previous);
            previous = e.seq;
        }
    }
    @Property(tries = 200)
    void aMessageThatSortsAFewPlacesBeforeTheTailJoinsTheListThere(
            @ForAll @IntRange(min = 1, max = 100) int inOrder,
            @ForAll @IntRange(min = 1, max = ReadyOrder.WALK + 1) int back) {
        ReadyOrder<Entry> ready = new ReadyOrder<>(ORDER);
        for (int i = 0; i < inOrder; i++) {
            ready.add(new Entry(10, 2L * i + 2));
        }
        // between the entries `back` and `back + 1` places from the tail (before the head if there are not so many)
        long seq = Math.max(1, 2L * (inOrder - back) + 1);
        Entry late = new Entry(10, seq);
        ready.add(late);
        boolean walked = back <= ReadyOrder.WALK || back > inOrder;
        assertThat(ready.outOfOrder()).isEqualTo(walked ? 0 : 1);
        long previous = -1;
        for (Entry e = ready.pollFirst(); e != null; e = ready.pollFirst()) {
            assertThat(e.seq).isGreaterThan(previous);
            previous = e.seq;
        }
    }

    @Example
    void aStormPromotedBehindAMessageThatWasDueAtOnceNeverReachesTheTree() {
        // A message offered "due now" is filed straight to ready while the storm's messages, offered earlier and so
        // sorting before it, still wait in the wheel: each one the wheel promotes then sorts one place before the tail.
        ReadyOrder<Entry> ready = new ReadyOrder<>(ORDER);
        int storm = 100_000;
        for (int i = 1; i <= 1000; i++) {
            ready.add(new Entry(10, i));
        }
        Entry dueNow = new Entry(11, storm + 1);
        ready.add(dueNow);
        for (int i = 1001; i <= storm; i++) {
            ready.add(new Entry(10, i));
        }
        assertThat(ready.outOfOrder()).isZero();
        assertThat(ready.size()).isEqualTo(storm + 1);
        for (int i = 1; i <= storm; i++) {
            assertThat(ready.pollFirst().seq).isEqualTo(i);
        }
        assertThat(ready.pollFirst()).isSameAs(dueNow);
    }
}
