package io.clockwork.queue;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QueueOptionsTest {

    @Test
    void unsetOptionsTakeTheDefaults() {
        QueueOptions<String> o = QueueOptions.<String>builder().build();
        assertThat(o.name()).isNull();
        assertThat(o.codec()).isNull();
        assertThat(o.visibilityTimeout()).isEqualTo(QueueOptions.DEFAULT_VISIBILITY_TIMEOUT);
        assertThat(o.maxAttempts()).isEqualTo(QueueOptions.DEFAULT_MAX_ATTEMPTS);
        assertThat(o.maxPayloadBytes()).isEqualTo(QueueOptions.DEFAULT_MAX_PAYLOAD_BYTES);
    }

    @Test
    void isAValue() {
        QueueOptions<String> a = QueueOptions.<String>builder().name("q").codec(Codec.string()).maxAttempts(3).build();
        QueueOptions<String> b = QueueOptions.<String>builder().name("q").codec(Codec.string()).maxAttempts(3).build();
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(QueueOptions.<String>builder().name("q").codec(Codec.string()).build());
        assertThat(a.toString()).contains("name=q", "maxAttempts=3");
    }

    @Test
    void badValuesNameTheOptionAndItsRange() {
        assertThatThrownBy(() -> QueueOptions.builder().maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts must be in [1, ");
        assertThatThrownBy(() -> QueueOptions.builder().visibilityTimeout(Duration.ofDays(8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("visibilityTimeout must be in");
        assertThatThrownBy(() -> QueueOptions.builder().maxPayloadBytes(QueueOptions.MAX_PAYLOAD_LIMIT + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPayloadBytes must be in");
        assertThatThrownBy(() -> QueueOptions.builder().name(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name must be 1 to 200");
        assertThatThrownBy(() -> QueueOptions.builder().maxAttempts(2).maxAttempts(3))
                .isInstanceOf(IllegalStateException.class).hasMessage("maxAttempts was already set");
    }

    @Test
    void aQueueBuilderTakesTheWholeValue() throws Exception {
        QueueOptions<String> shared = QueueOptions.<String>builder().maxAttempts(2)
                .visibilityTimeout(Duration.ofSeconds(3)).build();
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().options(shared).build()) {
            q.offer("a", Duration.ZERO);
            q.poll(Duration.ZERO).nack(Duration.ZERO);
            q.poll(Duration.ZERO).nack(Duration.ZERO);
            assertThat(q.stats().dead()).as("dead after maxAttempts (2) deliveries").isEqualTo(1);
        }
        // A default payload limit is not an explicit one: a queue without a codec accepts the value.
        assertThat(shared.codec()).isNull();
        assertThatThrownBy(() -> InMemoryDelayedQueue.<String>builder().options(shared).maxAttempts(4))
                .isInstanceOf(IllegalStateException.class).hasMessage("maxAttempts was already set");
        InMemoryDelayedQueue.Builder<String> named = InMemoryDelayedQueue.<String>builder().maxAttempts(9);
        assertThatThrownBy(() -> named.options(QueueOptions.<String>builder().name("other").build()))
                .isInstanceOf(IllegalStateException.class).hasMessage("maxAttempts was already set");
        try (InMemoryDelayedQueue<String> q = named.build()) {
            assertThat(q.name()).as("a refused options(...) sets nothing").startsWith("in-memory-");
        }
        QueueOptions<String> withLimit = QueueOptions.<String>builder().maxPayloadBytes(10).build();
        assertThatThrownBy(() -> InMemoryDelayedQueue.<String>builder().options(withLimit).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxPayloadBytes(10) needs a codec");
    }
}
