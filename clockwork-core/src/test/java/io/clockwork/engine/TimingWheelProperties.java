package io.clockwork.engine;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random schedule/remove/advance sequences against a reference model: a sorted map of (deadline tick, sequence)
 * to entry. After every advance, the wheel must have expired exactly the entries whose tick has come, in the
 * model's order, whether in one unbounded call or in bounded calls repeated until nothing due is left, also when
 * entries are removed while a bounded advance has left a cascade unfinished; and no entry links to anything but
 * entries.
 */
class TimingWheelProperties {

    record Op(int kind, long amount, int pick) { }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> schedule = Combinators.combine(
                Arbitraries.of(0), Arbitraries.longs().between(-5, 300_000), Arbitraries.integers().between(0, 1000))
                .as(Op::new);
        Arbitrary<Op> scheduleFar = Combinators.combine(
                Arbitraries.of(0), Arbitraries.longs().between(0, Long.MAX_VALUE), Arbitraries.integers().between(0, 1))
                .as(Op::new);
        Arbitrary<Op> remove = Combinators.combine(
                Arbitraries.of(1), Arbitraries.of(0L), Arbitraries.integers().between(0, 1000)).as(Op::new);
        // pick 0: one unbounded advance; pick k > 0: bounded advances of limit k until nothing due is left
        Arbitrary<Op> advance = Combinators.combine(
                Arbitraries.of(2), Arbitraries.longs().between(0, 70_000), Arbitraries.integers().between(0, 12))
                .as(Op::new);
        // a bounded advance left unfinished (a cascade pending, due entries waiting), removes meanwhile, then the rest
        Arbitrary<Op> interrupted = Combinators.combine(
                Arbitraries.of(3), Arbitraries.longs().between(0, 70_000), Arbitraries.integers().between(0, 1000))
                .as(Op::new);
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(5, schedule), net.jqwik.api.Tuple.of(1, scheduleFar),
                        net.jqwik.api.Tuple.of(2, remove), net.jqwik.api.Tuple.of(3, advance),
                        net.jqwik.api.Tuple.of(1, interrupted))
                .list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 300)
    void wheelExpiresExactlyWhatTheSortedModelSays(@ForAll("ops") List<Op> ops,
                                                   @ForAll("origins") long origin,
                                                   @ForAll("wheelSizes") int wheelSize) {
        long tick = 1_000;
        TimingWheel<TestEntry> wheel = new TimingWheel<>(tick, wheelSize, origin);
        TreeMap<long[], TestEntry> model = new TreeMap<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
                : Long.compare(a[1], b[1]));
        Map<Integer, long[]> keys = new HashMap<>();
        List<TestEntry> live = new ArrayList<>();
        long now = origin;
        long processedTick = 0;
        int seq = 0;
        for (Op op : ops) {
            switch (op.kind()) {
                case 0 -> {
                    TestEntry e = new TestEntry(seq, wheel.deadlineAfter(now, op.amount()));
                    long t = Math.max(processedTick, ceilDiv(e.deadline(), tick));
                    long[] key = {t, seq++};
                    model.put(key, e);
                    keys.put(e.id, key);
                    live.add(e);
                    wheel.schedule(e);
                }
                case 1 -> {
                    if (!live.isEmpty()) {
                        TestEntry e = live.remove(op.pick() % live.size());
                        assertThat(wheel.remove(e)).isTrue();
                        model.remove(keys.remove(e.id));
                    }
                }
                case 3 -> {
                    now += op.amount();
                    long nowTick = wheel.elapsed(now) / tick;
                    int limit = 1 + op.pick() % 4;
                    List<Integer> actual = new ArrayList<>();
                    wheel.advance(now, e -> actual.add(e.id), limit);
                    live.removeIf(e -> actual.contains(e.id)); // the model drops them below
                    for (int r = 0; r < 3 && !live.isEmpty(); r++) {
                        TestEntry e = live.remove((op.pick() + 7 * r) % live.size());
                        assertThat(wheel.remove(e)).isTrue();
                        model.remove(keys.remove(e.id));
                        assertLinksOnlyToEntries(live);
                    }
                    while (wheel.delayToNext(now) == 0) {
                        wheel.advance(now, e -> actual.add(e.id), limit);
                    }
                    List<Integer> expected = takeDue(model, keys, live, nowTick);
                    assertThat(actual).isEqualTo(expected);
                    processedTick = Math.max(processedTick, nowTick);
                }
                default -> {
                    now += op.amount();
                    long nowTick = wheel.elapsed(now) / tick;
                    List<Integer> expected = takeDue(model, keys, live, nowTick);
                    List<Integer> actual = new ArrayList<>();
                    if (op.pick() == 0) {
                        wheel.advance(now, e -> actual.add(e.id));
                    } else {
                        for (int calls = 0; calls == 0 || wheel.delayToNext(now) == 0; calls++) {
                            assertThat(calls).isLessThan(100_000);
                            assertThat(wheel.advance(now, e -> actual.add(e.id), op.pick()))
                                    .isLessThanOrEqualTo(op.pick());
                        }
                    }
                    assertThat(actual).isEqualTo(expected);
                    processedTick = Math.max(processedTick, nowTick);
                }
            }
            assertThat(wheel.size()).isEqualTo(model.size());
            assertLinksOnlyToEntries(live);
            if (model.isEmpty()) {
                assertThat(wheel.delayToNext(now)).isEqualTo(Long.MAX_VALUE);
            } else {
                long firstTick = model.firstKey()[0];
                long firstDue = firstTick > Long.MAX_VALUE / tick ? Long.MAX_VALUE : firstTick * tick;
                // the wheel may wake earlier (to cascade) but never later than the first due entry
                assertThat(wheel.delayToNext(now)).isLessThanOrEqualTo(Math.max(0, firstDue - wheel.elapsed(now)));
            }
        }
    }

    /** Takes the model's entries due by {@code nowTick} out of it, in expiry order, and returns their ids. */
    private static List<Integer> takeDue(TreeMap<long[], TestEntry> model, Map<Integer, long[]> keys,
                                         List<TestEntry> live, long nowTick) {
        List<Integer> due = new ArrayList<>();
        while (!model.isEmpty() && model.firstKey()[0] <= nowTick) {
            TestEntry e = model.pollFirstEntry().getValue();
            due.add(e.id);
            keys.remove(e.id);
            live.remove(e);
        }
        return due;
    }

    /** No entry holds a reference to a list object (see {@code Bucket}): only to entries, or to itself. */
    private static void assertLinksOnlyToEntries(List<TestEntry> live) {
        for (TestEntry e : live) {
            assertThat(e.prev).as("prev of %s", e).isInstanceOf(TestEntry.class);
            assertThat(e.next == null || e.next instanceof TestEntry).as("next of %s", e).isTrue();
        }
    }

    @Provide
    Arbitrary<Long> origins() {
        return Arbitraries.of(0L, Long.MAX_VALUE - 50_000_000L, Long.MIN_VALUE, -123_456_789L);
    }

    @Provide
    Arbitrary<Integer> wheelSizes() {
        return Arbitraries.of(2, 8, 64);
    }

    private static long ceilDiv(long x, long y) {
        long q = x / y;
        return q * y == x ? q : q + 1;
    }
}
