package io.clockwork.benchmarks.queue;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the BullMQ rival's driver checks before it starts Node, and how it reads the program's result line; running
 * BullMQ is {@link BullMqRivalIT}'s subject.
 */
class BullMqRivalTest {

    @Test
    void readsTheFieldsOfAResultLine() {
        Map<String, String> f = BullMqRival.fields("{\"mode\":\"drain\",\"jobs\":1000,\"seconds\":0.25,"
                + "\"jobsPerSec\":4000,\"keepCompleted\":false,\"bullmq\":\"6.7.0\",\"node\":\"v20.20.2\"}");

        assertThat(f).containsEntry("mode", "drain").containsEntry("jobs", "1000").containsEntry("seconds", "0.25")
                .containsEntry("keepCompleted", "false").containsEntry("bullmq", "6.7.0")
                .containsEntry("node", "v20.20.2");
    }

    @Test
    void aLineThatIsNoResultIsAnError() {
        assertThatThrownBy(() -> BullMqRival.fields("{\"phase\":\"ready\"}"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not a result of the BullMQ rival");
    }

    @Test
    void badCountsAreRefusedNamingTheArgumentBeforeNodeStarts() {
        assertThatThrownBy(() -> BullMqRival.drain(null, "q", 0, 4, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backlog must be at least 1: 0");
        assertThatThrownBy(() -> BullMqRival.drain(null, "q", 10, 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("concurrency must be at least 1: 0");
        assertThatThrownBy(() -> BullMqRival.addCount(null, "q", 0, 0, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("producers must be at least 1: 0");
        assertThatThrownBy(() -> BullMqRival.addCount(null, "q", 4, -1, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("delayMs must be >= 0: -1");
        assertThatThrownBy(() -> BullMqRival.add(null, "q", 4, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seconds must be > 0");
    }

    @Test
    void aMissingServerIsNamed() {
        assertThatThrownBy(() -> BullMqRival.drain(null, "q", 10, 4, false))
                .isInstanceOf(NullPointerException.class).hasMessage("server");
    }
}
