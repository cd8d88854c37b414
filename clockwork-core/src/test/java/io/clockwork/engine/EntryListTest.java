package io.clockwork.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link EntryList}: first in, first out, removal from the middle, and no entry in two places. */
class EntryListTest {

    @Test
    void entriesLeaveInTheOrderTheyCameAndRemovalFromTheMiddleKeepsTheRest() {
        EntryList<TestEntry> list = new EntryList<>();
        TestEntry a = new TestEntry(1, 0);
        TestEntry b = new TestEntry(2, 0);
        TestEntry c = new TestEntry(3, 0);
        assertThat(list.isEmpty()).isTrue();
        assertThat(list.first()).isNull();
        assertThat(list.last()).isNull();
        assertThat(list.pollFirst()).isNull();
        list.append(a);
        list.append(b);
        list.append(c);
        assertThat(list.size()).isEqualTo(3);
        assertThat(list.first()).isSameAs(a);
        assertThat(list.last()).isSameAs(c);
        assertThat(b.isLinked()).isTrue();
        list.remove(b);
        assertThat(b.isLinked()).isFalse();
        assertThat(list.size()).isEqualTo(2);
        assertThat(list.pollFirst()).isSameAs(a);
        assertThat(a.isLinked()).isFalse();
        assertThat(list.pollFirst()).isSameAs(c);
        assertThat(list.pollFirst()).isNull();
        assertThat(list.isEmpty()).isTrue();
    }

    @Test
    void aLinkedEntryIsRefusedAndAnEntryTakenOutCanBeScheduledAgain() {
        EntryList<TestEntry> list = new EntryList<>();
        TimingWheel<TestEntry> wheel = new TimingWheel<>(1_000_000L, 64, 0L);
        TestEntry e = new TestEntry(1, 5_000_000L);
        wheel.schedule(e);
        assertThatThrownBy(() -> list.append(e)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already linked");
        wheel.remove(e);
        list.append(e);
        assertThatThrownBy(() -> list.append(e)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> e.deadline(7_000_000L)).isInstanceOf(IllegalStateException.class);
        assertThat(list.pollFirst()).isSameAs(e);
        e.deadline(7_000_000L);
        wheel.schedule(e);
        assertThat(wheel.size()).isEqualTo(1);
    }

    @Test
    void anEntryInsertedBeforeAnotherTakesItsPlaceAndPreviousWalksBackToTheHead() {
        EntryList<TestEntry> list = new EntryList<>();
        TestEntry a = new TestEntry(1, 0);
        TestEntry b = new TestEntry(2, 0);
        TestEntry c = new TestEntry(3, 0);
        TestEntry d = new TestEntry(4, 0);
        list.append(b);
        list.append(d);
        list.insertBefore(d, c);
        list.insertBefore(b, a);
        assertThat(list.size()).isEqualTo(4);
        assertThat(list.first()).isSameAs(a);
        assertThat(list.last()).isSameAs(d);
        assertThat(list.previous(d)).isSameAs(c);
        assertThat(list.previous(c)).isSameAs(b);
        assertThat(list.previous(b)).isSameAs(a);
        assertThat(list.previous(a)).isNull();
        assertThatThrownBy(() -> list.insertBefore(a, c)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already linked");
        assertThat(list.pollFirst()).isSameAs(a);
        assertThat(list.pollFirst()).isSameAs(b);
        assertThat(list.pollFirst()).isSameAs(c);
        assertThat(list.pollFirst()).isSameAs(d);
        assertThat(list.isEmpty()).isTrue();
    }
}
