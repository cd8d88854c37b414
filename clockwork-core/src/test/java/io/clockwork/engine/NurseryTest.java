package io.clockwork.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NurseryTest {

    @Test
    void sweepFilesSurvivorsInSchedulingOrderAndDropsTheDead() {
        Nursery<TestEntry> nursery = new Nursery<>();
        for (int i = 0; i < 10; i++) {
            nursery.add(new TestEntry(i, 1_000));
        }
        assertThat(nursery.size()).isEqualTo(10);
        List<Integer> survivors = new ArrayList<>();
        int dropped = nursery.sweep(e -> e.id % 3 != 0, e -> survivors.add(e.id));
        assertThat(dropped).isEqualTo(4);
        assertThat(survivors).containsExactly(1, 2, 4, 5, 7, 8);
        assertThat(nursery.isEmpty()).isTrue();
        assertThat(nursery.sweep(e -> true, e -> survivors.add(-1))).isZero();
    }

    @Test
    void survivorsCanBeFiledIntoAWheelAndExpireThere() {
        Nursery<TestEntry> nursery = new Nursery<>();
        TimingWheel<TestEntry> wheel = new TimingWheel<>(1_000, 64, 0);
        nursery.add(new TestEntry(1, 5_000));
        nursery.add(new TestEntry(2, 7_000));
        nursery.sweep(e -> e.id == 2, wheel::schedule);
        List<Integer> fired = new ArrayList<>();
        wheel.advance(10_000, e -> fired.add(e.id));
        assertThat(fired).containsExactly(2);
    }
}
