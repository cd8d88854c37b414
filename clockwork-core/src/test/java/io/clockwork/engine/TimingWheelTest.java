package io.clockwork.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TimingWheelTest {

    private static final long MS = 1_000_000L;

    @Test
    void earliestIsAnEntryWithTheSmallestDeadlineAcrossLevelsAdvancesAndRemovals() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 8, 0);
        assertThat(wheel.earliest()).isNull();
        Random random = new Random(7);
        List<TestEntry> live = new ArrayList<>();
        long now = 0;
        for (int round = 0; round < 2_000; round++) {
            int op = random.nextInt(10);
            if (op < 5) {
                // deadlines from this tick to several levels up (8 buckets a level: 8 ms, 64 ms, 512 ms, ...)
                long delay = (long) Math.pow(8, random.nextInt(6)) * MS * random.nextInt(1, 9) + random.nextInt(1_000);
                TestEntry e = new TestEntry(round, now + delay);
                wheel.schedule(e);
                live.add(e);
            } else if (op < 7 && !live.isEmpty()) {
                TestEntry e = live.remove(random.nextInt(live.size()));
                assertThat(wheel.remove(e)).isTrue();
            } else {
                now += random.nextInt(20) * MS / 4;
                wheel.advance(now, live::remove);
            }
            long min = live.stream().mapToLong(TestEntry::deadline).min().orElse(-1);
            TestEntry earliest = wheel.earliest();
            if (live.isEmpty()) {
                assertThat(earliest).as("round %d", round).isNull();
            } else {
                assertThat(earliest).as("round %d", round).isNotNull();
                assertThat(earliest.deadline()).as("round %d, earliest of %d", round, live.size()).isEqualTo(min);
            }
        }
    }

    @Test
    void everyEntryExpiresInTheTickOfItsDeadlineOrTheNextNeverBefore() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        Random random = new Random(42);
        List<TestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            TestEntry e = new TestEntry(i, 1 + (long) (random.nextDouble() * 10_000 * MS));
            entries.add(e);
            wheel.schedule(e);
        }
        long[] firedAt = new long[entries.size()];
        long step = 37_000; // deliberately not a divisor of the tick
        for (long now = 0; now <= 10_002 * MS; now += step) {
            long t = now;
            wheel.advance(now, e -> firedAt[e.id] = t);
        }
        for (TestEntry e : entries) {
            long deadlineTickEnd = ceilToTick(e.deadline(), MS);
            assertThat(firedAt[e.id]).as("%s", e).isGreaterThanOrEqualTo(e.deadline())
                    .isGreaterThanOrEqualTo(deadlineTickEnd).isLessThan(deadlineTickEnd + step);
        }
        assertThat(wheel.isEmpty()).isTrue();
    }

    @Test
    void cascadesFromEveryLevelDownToExpiry() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(1, 4, 0); // 2 bits per level: many levels
        List<TestEntry> entries = new ArrayList<>();
        for (int level = 0; level < wheel.levels(); level++) {
            long deadline = 1L << (2 * level);
            if (deadline <= 0) {
                break;
            }
            entries.add(new TestEntry(level, deadline));
            entries.add(new TestEntry(100 + level, deadline + 1));
        }
        entries.add(new TestEntry(999, Long.MAX_VALUE));
        entries.forEach(wheel::schedule);
        List<Long> order = new ArrayList<>();
        for (TestEntry e : entries) {
            assertThat(wheel.delayToNext(0)).isPositive();
            // jump straight to just before the deadline, then to it: nothing early, then exactly this one
            wheel.advance(e.deadline() - 1, x -> order.add(-x.deadline()));
            int[] count = {0};
            wheel.advance(e.deadline(), x -> {
                order.add(x.deadline());
                count[0]++;
            });
            assertThat(count[0]).as("expired at %s", e).isEqualTo(1);
        }
        assertThat(order).allMatch(d -> d > 0).isSorted();
        assertThat(wheel.size()).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {Long.MAX_VALUE - 5_000_000L, Long.MIN_VALUE + 3, -1L, 0L})
    void clockStartingAnywhereOnTheTimelineWrapsSafely(long origin) {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, origin);
        long now = origin;
        TestEntry soon = new TestEntry(1, wheel.deadlineAfter(now, 10 * MS));
        TestEntry later = new TestEntry(2, wheel.deadlineAfter(now, 20_000 * MS));
        wheel.schedule(soon);
        wheel.schedule(later);
        List<Integer> fired = new ArrayList<>();
        for (int i = 1; i <= 30_000; i++) {
            now += MS; // crosses Long.MAX_VALUE -> Long.MIN_VALUE for the first origin
            long t = now;
            wheel.advance(now, e -> {
                fired.add(e.id);
                assertThat(t - origin).isGreaterThanOrEqualTo(e.deadline());
            });
            if (i == 9) {
                assertThat(fired).isEmpty();
            }
            if (i == 10) {
                assertThat(fired).containsExactly(1);
            }
        }
        assertThat(fired).containsExactly(1, 2);
    }

    @Test
    void deadlinesSaturateInsteadOfOverflowing() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, Long.MAX_VALUE - 10);
        long now = Long.MAX_VALUE + 1_000L; // wrapped: 1,010 ns after the origin
        assertThat(wheel.deadlineAfter(now, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(wheel.deadlineAfter(now, -5)).as("due now: start of the current tick").isZero();
        TestEntry forever = new TestEntry(1, wheel.deadlineAfter(now, Long.MAX_VALUE));
        wheel.schedule(forever);
        assertThat(wheel.advance(now + 100L * 365 * 24 * 3600 * 1_000_000_000L, e -> { })).isZero();
        assertThat(wheel.delayToNext(now)).isPositive().isLessThan(Long.MAX_VALUE);
        assertThat(wheel.size()).isOne();
    }

    @Test
    void negativeOrZeroDelayExpiresAtTheNextAdvanceEvenMidTick() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        long midTick = 50 * MS + MS / 2;
        wheel.advance(midTick, e -> { });
        wheel.schedule(new TestEntry(1, wheel.deadlineAfter(midTick, -3 * MS)));
        wheel.schedule(new TestEntry(2, wheel.deadlineAfter(midTick, 0)));
        wheel.schedule(new TestEntry(3, wheel.deadlineAfter(midTick, 1)));
        assertThat(wheel.delayToNext(midTick)).isZero();
        List<Integer> fired = new ArrayList<>();
        wheel.advance(midTick, e -> fired.add(e.id));
        assertThat(fired).containsExactly(1, 2);
        wheel.advance(51 * MS, e -> fired.add(e.id));
        assertThat(fired).containsExactly(1, 2, 3);
    }

    @Test
    void entriesOfOneTickExpireInSchedulingOrder() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        for (int i = 0; i < 100; i++) {
            // all round up to tick 5000, some via higher levels
            wheel.schedule(new TestEntry(i, 5_000 * MS - (i % 7) * 1_000));
        }
        List<Integer> fired = new ArrayList<>();
        wheel.advance(4_999 * MS, e -> fired.add(e.id));
        assertThat(fired).isEmpty();
        wheel.advance(5_000 * MS, e -> fired.add(e.id));
        assertThat(fired).hasSize(100).isSorted();
    }

    @Test
    void boundedAdvanceExpiresAtMostTheLimitAndLeavesTheRestDueInOrder() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        for (int i = 0; i < 25; i++) {
            // ticks 3, 4 and 300 (a level-1 bucket), in that order of ids
            long tick = i < 10 ? 3 : i < 20 ? 4 : 300;
            wheel.schedule(new TestEntry(i, tick * MS));
        }
        wheel.schedule(new TestEntry(99, 900 * MS)); // not due: must survive every call
        List<Integer> fired = new ArrayList<>();
        // Expiries and moves down a level both count: a first-level bucket joins the due list whole, for free.
        assertThat(wheel.advance(400 * MS, e -> fired.add(e.id), 7)).isEqualTo(7); // 7 of tick 3
        assertThat(wheel.delayToNext(400 * MS)).isZero();
        assertThat(wheel.advance(400 * MS, e -> fired.add(e.id), 7)).isEqualTo(7); // 3 of tick 3, 4 of tick 4
        assertThat(wheel.advance(400 * MS, e -> fired.add(e.id), 7)).isEqualTo(6); // 6 of tick 4, 1 moved down
        assertThat(wheel.delayToNext(400 * MS)).isZero(); // the cascade of the bucket at tick 256 is unfinished
        assertThat(wheel.advance(400 * MS, e -> fired.add(e.id), 7)).isEqualTo(3); // 4 moved, 3 of tick 300
        assertThat(wheel.advance(400 * MS, e -> fired.add(e.id), 7)).isEqualTo(2);
        assertThat(fired).hasSize(25).isSorted();
        assertThat(wheel.size()).isEqualTo(1);
        assertThat(wheel.delayToNext(400 * MS)).isEqualTo(496 * MS); // 900 ms cascades from the bucket at 896
        assertThatThrownBy(() -> wheel.advance(400 * MS, e -> { }, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
    }

    @Test
    void entriesScheduledWhileACascadeIsUnfinishedExpireBehindTheOlderOnesOfTheirTick() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        for (int i = 0; i < 10; i++) {
            wheel.schedule(new TestEntry(i, 300 * MS)); // the level-1 bucket that cascades at tick 256
        }
        List<Integer> fired = new ArrayList<>();
        assertThat(wheel.advance(300 * MS, e -> fired.add(e.id), 3)).isZero(); // 3 moved down, 7 still waiting
        wheel.schedule(new TestEntry(50, 300 * MS)); // same tick, scheduled later
        wheel.schedule(new TestEntry(51, 280 * MS)); // an earlier tick of the same span
        wheel.schedule(new TestEntry(52, 100 * MS)); // already past: due now
        assertThat(wheel.size()).isEqualTo(13);
        wheel.advance(300 * MS, e -> fired.add(e.id));
        assertThat(fired).containsExactly(52, 51, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 50);
        assertThat(wheel.isEmpty()).isTrue();
    }

    @Test
    void anEntryRemovedFromAnUnfinishedCascadeNeverExpiresAndEarliestSeesTheRest() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        List<TestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            TestEntry e = new TestEntry(i, (310 - i) * MS);
            entries.add(e);
            wheel.schedule(e);
        }
        List<Integer> fired = new ArrayList<>();
        wheel.advance(257 * MS, e -> fired.add(e.id), 2); // moves entries 0 and 1 down; 2 to 5 wait
        assertThat(wheel.remove(entries.get(4))).isTrue();
        assertThat(wheel.earliest()).isSameAs(entries.get(5)); // still in the unfinished bucket
        wheel.advance(400 * MS, e -> fired.add(e.id));
        assertThat(fired).containsExactly(5, 3, 2, 1, 0);
    }

    @Test
    void entriesLinkOnlyToEntriesOrThemselvesInBucketsTheDueListAndAnUnfinishedCascade() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        List<TestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            // level 0, a level-1 bucket (cascading at tick 256 below), a level-2 bucket, and the past
            long deadline = new long[] {5, 300, 310, 9_000, 0}[i % 5] * MS;
            TestEntry e = new TestEntry(i, deadline);
            entries.add(e);
            wheel.schedule(e);
        }
        List<TestEntry> fired = new ArrayList<>();
        wheel.advance(260 * MS, fired::add, 20); // the level-1 cascade is left unfinished
        for (TestEntry e : entries) {
            if (fired.contains(e)) {
                assertThat(e.prev).isNull();
            } else {
                // a reference to a list's own object would make G1 refine the entry's card at every move
                assertThat(e.prev).isInstanceOf(TestEntry.class);
                assertThat(e.next == null || e.next instanceof TestEntry).as("next of %s", e).isTrue();
            }
        }
        List<TestEntry> removed = new ArrayList<>();
        for (int i = 0; i < entries.size(); i += 3) { // first, inner and last entries of each list
            TestEntry e = entries.get(i);
            boolean live = !fired.contains(e);
            assertThat(wheel.remove(e)).isEqualTo(live);
            if (live) {
                removed.add(e);
            }
        }
        wheel.advance(20_000 * MS, fired::add);
        assertThat(fired).doesNotContainAnyElementsOf(removed).hasSize(entries.size() - removed.size());
        assertThat(wheel.isEmpty()).isTrue();
    }

    @Test
    void removingAnEntryOfAnotherWheelIsRefusedAndChangesNeither() {
        TimingWheel<TestEntry> one = new TimingWheel<>(MS, 64, 0);
        TimingWheel<TestEntry> other = new TimingWheel<>(MS, 64, 0);
        TestEntry mine = new TestEntry(1, 10 * MS);
        TestEntry theirs = new TestEntry(2, 10 * MS);
        one.schedule(mine);
        other.schedule(theirs);
        assertThatThrownBy(() -> one.remove(theirs))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not into this wheel");
        List<Integer> fired = new ArrayList<>();
        one.advance(20 * MS, e -> fired.add(e.id));
        other.advance(20 * MS, e -> fired.add(e.id));
        assertThat(fired).containsExactly(1, 2);
    }

    @Test
    void removedEntryNeverExpiresAndRemovingTwiceReportsFalse() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        TestEntry a = new TestEntry(1, 10 * MS);
        TestEntry b = new TestEntry(2, 10 * MS);
        wheel.schedule(a);
        wheel.schedule(b);
        assertThat(wheel.remove(a)).isTrue();
        assertThat(wheel.remove(a)).isFalse();
        assertThat(a.isLinked()).isFalse();
        List<Integer> fired = new ArrayList<>();
        wheel.advance(20 * MS, e -> fired.add(e.id));
        assertThat(fired).containsExactly(2);
        assertThat(wheel.remove(b)).isFalse();
    }

    @Test
    void removingTheOnlyEntryOfABucketLeavesNoPhantomWakeUp() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        TestEntry early = new TestEntry(1, 10 * MS);
        wheel.schedule(early);
        wheel.schedule(new TestEntry(2, 500 * MS));
        wheel.remove(early);
        assertThat(wheel.delayToNext(0)).isEqualTo(448 * MS); // 500 ms sits in a level-1 bucket starting at 448
        wheel.advance(448 * MS, e -> { });
        assertThat(wheel.delayToNext(448 * MS)).isEqualTo(52 * MS);
    }

    @Test
    void advancingOverYearsOfEmptyTimeVisitsOnlyOccupiedBuckets() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(1, 64, 0); // 1 ns tick: 11 levels
        long tenYears = 10L * 365 * 24 * 3600 * 1_000_000_000L;
        wheel.schedule(new TestEntry(1, tenYears));
        long[] firedAt = {-1};
        long start = System.nanoTime();
        wheel.advance(tenYears - 1, e -> firedAt[0] = 0);
        wheel.advance(tenYears, e -> firedAt[0] = tenYears);
        long tookNanos = System.nanoTime() - start;
        assertThat(firedAt[0]).isEqualTo(tenYears);
        // ~3e17 ticks; a tick-by-tick wheel would never finish. Generous bound: it is O(levels).
        assertThat(tookNanos).isLessThan(1_000_000_000L);
    }

    @Test
    void sinkMayScheduleDueAndFutureEntries() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        wheel.schedule(new TestEntry(1, 5 * MS));
        List<Integer> fired = new ArrayList<>();
        wheel.advance(5 * MS, e -> {
            fired.add(e.id);
            if (e.id == 1) {
                wheel.schedule(new TestEntry(2, 5 * MS));   // due now: same advance
                wheel.schedule(new TestEntry(3, 6 * MS));   // next tick
            }
        });
        assertThat(fired).containsExactly(1, 2);
        wheel.advance(6 * MS, e -> fired.add(e.id));
        assertThat(fired).containsExactly(1, 2, 3);
    }

    @Test
    void removeIfPurgesMatchingEntriesEverywhere() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        for (int i = 0; i < 1_000; i++) {
            wheel.schedule(new TestEntry(i, (long) i * i * MS));
        }
        assertThat(wheel.removeIf(e -> e.id % 10 != 0)).isEqualTo(900);
        assertThat(wheel.size()).isEqualTo(100);
        List<Integer> fired = new ArrayList<>();
        wheel.advance(Long.MAX_VALUE / 2, e -> fired.add(e.id));
        assertThat(fired).hasSize(100).allMatch(id -> id % 10 == 0).isSorted();
    }

    @Test
    void schedulingALinkedEntryIsRejected() {
        TimingWheel<TestEntry> wheel = new TimingWheel<>(MS, 64, 0);
        TestEntry e = new TestEntry(1, MS);
        wheel.schedule(e);
        assertThatThrownBy(() -> wheel.schedule(e)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> e.deadline(5)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void badConstructorArgumentsNameTheArgumentAndRange() {
        assertThatThrownBy(() -> new TimingWheel<>(0, 64, 0))
                .hasMessageContaining("tickNanos").hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new TimingWheel<>(MS, 20, 0))
                .hasMessageContaining("wheelSize").hasMessageContaining("[2, 64]").hasMessageContaining("20");
        assertThatThrownBy(() -> new TimingWheel<>(MS, 128, 0)).hasMessageContaining("wheelSize");
    }

    static long ceilToTick(long t, long tick) {
        return (t + tick - 1) / tick * tick;
    }
}
