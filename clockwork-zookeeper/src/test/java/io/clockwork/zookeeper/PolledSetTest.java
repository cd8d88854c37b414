package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The set {@code ExpiryQueue.poll()} returns behaves as a {@code HashSet} of the same elements would. */
class PolledSetTest {

    private static PolledSet<Integer> of(int n) {
        return new PolledSet<>(IntStream.range(0, n).boxed().toArray());
    }

    private static Set<Integer> hashSetOf(int n) {
        Set<Integer> set = new HashSet<>();
        IntStream.range(0, n).forEach(set::add);
        return set;
    }

    @Test
    void equalsAndHashesLikeAHashSetOfTheSameElements() {
        for (int n : new int[] {1, 8, 9, 1000}) {
            assertThat(of(n)).isEqualTo(hashSetOf(n)).hasSize(n);
            assertThat(hashSetOf(n)).isEqualTo(of(n));
            assertThat(of(n).hashCode()).isEqualTo(hashSetOf(n).hashCode());
        }
    }

    @Test
    void containsAnswersBeforeAndAfterItHashesAndKeepsIterationsGoing() {
        PolledSet<Integer> set = of(100);
        Iterator<Integer> it = set.iterator();
        int visited = 0;
        while (it.hasNext()) {
            assertThat(set.contains(it.next())).isTrue(); // builds the index mid-iteration
            visited++;
        }
        assertThat(visited).isEqualTo(100);
        assertThat(set.contains(100)).isFalse();
        assertThat(of(3).contains(2)).isTrue();
        assertThat(of(3).contains(3)).isFalse();
    }

    @Test
    void iteratorRemoveVisitsEveryElementOnce() {
        PolledSet<Integer> set = of(50);
        set.contains(7); // with an index, which must follow removals
        Set<Integer> visited = new HashSet<>();
        set.removeIf(e -> {
            assertThat(visited.add(e)).as("visited twice: %s", e).isTrue();
            return e % 2 == 0;
        });
        assertThat(visited).isEqualTo(hashSetOf(50));
        assertThat(set).hasSize(25).allMatch(e -> e % 2 == 1);
        assertThat(set.contains(8)).isFalse();
        assertThat(set.contains(9)).isTrue();
    }

    @Test
    void addAndRemoveTurnItIntoAHashSetAndEndIterations() {
        PolledSet<Integer> set = of(20);
        Iterator<Integer> it = set.iterator();
        it.next();
        assertThat(set.add(5)).isFalse();
        assertThat(set.add(20)).isTrue();
        assertThat(set.remove(0)).isTrue();
        assertThat(set.remove(0)).isFalse();
        assertThatThrownBy(it::hasNext).isInstanceOf(ConcurrentModificationException.class);
        Set<Integer> expected = hashSetOf(21);
        expected.remove(0);
        assertThat(set).isEqualTo(expected);
    }

    @Test
    void clearEmptiesIt() {
        PolledSet<Integer> set = of(10);
        set.clear();
        assertThat(set).isEmpty();
        assertThat(set.contains(1)).isFalse();
        assertThat(set.add(1)).isTrue();
        assertThat(set).containsExactly(1);
    }
}
