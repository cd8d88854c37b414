package io.clockwork.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TimerEntryTest {

    private static final class Entry extends TimerEntry {
    }

    @Test
    void theSequenceNumberSharesTheStateWordWithoutDisturbingTheStatus() {
        Entry e = new Entry();
        TimerEntry.UNSHARED.sequence(e, (1 << 30) - 1);
        assertThat(e.isPending()).isTrue();
        assertThat(TimerEntry.UNSHARED.sequence(e)).isEqualTo((1 << 30) - 1);
        assertThat(e.transition(TimerEntry.EXPIRED)).isTrue();
        assertThat(e.state()).isEqualTo(TimerEntry.EXPIRED);
        assertThat(e.transition(TimerEntry.CANCELLED)).isFalse();
        assertThat(TimerEntry.SHARED.sequence(e)).as("transitions keep the number").isEqualTo((1 << 30) - 1);
    }

    @Test
    void theSharedSequencerKeepsACancelThatCameBeforeTheOffer() {
        // The Kafka face binds a task to its entry before scheduling it, so another thread may cancel first.
        Entry e = new Entry();
        assertThat(e.transition(TimerEntry.CANCELLED)).isTrue();
        TimerEntry.SHARED.sequence(e, 12345);
        assertThat(e.state()).isEqualTo(TimerEntry.CANCELLED);
        assertThat(TimerEntry.SHARED.sequence(e)).isEqualTo(12345);
        assertThat(e.transition(TimerEntry.EXPIRED)).isFalse();
    }
}
