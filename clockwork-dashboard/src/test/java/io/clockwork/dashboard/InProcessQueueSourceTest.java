package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** {@link InProcessQueueSource}: a fixed list of queues, or a live one that shows queues opened later. */
class InProcessQueueSourceTest {

    private static InMemoryDelayedQueue<String> queue(String name) {
        return InMemoryDelayedQueue.<String>builder().name(name).codec(Codec.string()).build();
    }

    @Test
    void aLiveSourceShowsQueuesOpenedAfterItWasMadeUnderItsOwnLabel() {
        List<DelayedQueue<?>> opened = new CopyOnWriteArrayList<>();
        try (InMemoryDelayedQueue<String> b = queue("b"); InMemoryDelayedQueue<String> a = queue("a")) {
            InProcessQueueSource source = InProcessQueueSource.live(() -> opened, "redis (the application's queues)");
            assertThat(source.names()).isEmpty();
            assertThat(source.queue("a")).isEmpty();

            opened.add(b);
            opened.add(a);
            a.offer("x", Duration.ofMinutes(1));
            assertThat(source.names()).containsExactly("a", "b");
            QueueView view = source.queue("a").orElseThrow();
            assertThat(view.stats().delayed()).isEqualTo(a.stats().delayed()).isEqualTo(1);
            assertThat(view.backend()).isEqualTo("redis (the application's queues)");
            assertThat(source.describe()).isEqualTo("redis (the application's queues)");
        }
    }

    @Test
    void badArgumentsAreRefusedByName() {
        try (InMemoryDelayedQueue<String> a = queue("a"); InMemoryDelayedQueue<String> again = queue("a")) {
            assertThatThrownBy(() -> InProcessQueueSource.of(List.of(a, again)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a' is twice");
            assertThatThrownBy(() -> InProcessQueueSource.live(null, "x")).isInstanceOf(NullPointerException.class)
                    .hasMessage("queues");
            assertThatThrownBy(() -> InProcessQueueSource.live(List::of, " "))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("where");
            assertThat(InProcessQueueSource.of(List.of(a)).describe()).isEqualTo("in-process");
        }
    }
}
