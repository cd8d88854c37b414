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

    @Test
    void flowControlOptionsAreUnsetByDefault() {
        QueueOptions<String> o = QueueOptions.<String>builder().build();
        assertThat(o.rateLimit()).isEmpty();
        assertThat(o.groupRateLimit()).isEmpty();
        assertThat(o.maxInFlightPerGroup()).isEmpty();
        assertThat(o.groupWeights()).isEmpty();
        assertThat(o.groupWeight("any")).isEqualTo(QueueOptions.DEFAULT_GROUP_WEIGHT);
        assertThat(o.hasFlowControl()).isFalse();
    }

    @Test
    void flowControlOptionsAreKeptAndCompared() {
        QueueOptions<String> a = QueueOptions.<String>builder().rateLimit(100, Duration.ofSeconds(1))
                .groupRateLimit(10, Duration.ofMillis(500)).maxInFlightPerGroup(1).groupWeight("vip", 5).build();
        assertThat(a.rateLimit()).contains(new RateLimit(100, Duration.ofSeconds(1)));
        assertThat(a.groupRateLimit()).contains(new RateLimit(10, Duration.ofMillis(500)));
        assertThat(a.maxInFlightPerGroup()).hasValue(1);
        assertThat(a.groupWeight("vip")).isEqualTo(5);
        assertThat(a.groupWeight("other")).isEqualTo(1);
        assertThat(a.hasFlowControl()).isTrue();
        assertThat(a).isNotEqualTo(QueueOptions.<String>builder().build());
        assertThat(a.toString()).contains("maxInFlightPerGroup=1", "vip=5");
        QueueOptions<String> copy = QueueOptions.<String>builder().rateLimit(100, Duration.ofSeconds(1))
                .groupRateLimit(10, Duration.ofMillis(500)).maxInFlightPerGroup(1).groupWeight("vip", 5).build();
        assertThat(copy).isEqualTo(a).hasSameHashCodeAs(a);
        assertThatThrownBy(() -> a.groupWeights().put("x", 2)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void badFlowControlValuesNameTheArgumentAndItsRange() {
        assertThatThrownBy(() -> QueueOptions.builder().rateLimit(0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("permits must be in [1, 1000000], was 0");
        assertThatThrownBy(() -> QueueOptions.builder().groupRateLimit(1_000_001, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits must be in [1, 1000000]");
        assertThatThrownBy(() -> QueueOptions.builder().rateLimit(1, Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval must be in [PT0.001S, PT24H], was PT0.000999999S");
        assertThatThrownBy(() -> QueueOptions.builder().groupRateLimit(1, Duration.ofDays(1).plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interval must be in");
        assertThatThrownBy(() -> QueueOptions.builder().rateLimit(1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("interval");
        assertThatThrownBy(() -> QueueOptions.builder().maxInFlightPerGroup(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxInFlightPerGroup must be in [1, 1000000], was 0");
        assertThatThrownBy(() -> QueueOptions.builder().maxInFlightPerGroup(1_000_001))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxInFlightPerGroup must be");
        assertThatThrownBy(() -> QueueOptions.builder().groupWeight("g", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight must be in [1, 1000], was 0");
        assertThatThrownBy(() -> QueueOptions.builder().groupWeight("g", 1001))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight must be in [1, 1000]");
        assertThatThrownBy(() -> QueueOptions.builder().groupWeight("", 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group must be 1 to 128");
        assertThatThrownBy(() -> QueueOptions.builder().groupWeight(null, 2))
                .isInstanceOf(NullPointerException.class).hasMessage("group");
        assertThatThrownBy(() -> QueueOptions.builder().rateLimit(1, Duration.ofSeconds(1))
                .rateLimit(2, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessage("rateLimit was already set");
        assertThatThrownBy(() -> QueueOptions.builder().maxInFlightPerGroup(1).maxInFlightPerGroup(2))
                .isInstanceOf(IllegalStateException.class).hasMessage("maxInFlightPerGroup was already set");
        assertThatThrownBy(() -> QueueOptions.builder().groupWeight("g", 2).groupWeight("g", 3))
                .isInstanceOf(IllegalStateException.class).hasMessage("groupWeight of group 'g' was already set");
    }

    @Test
    void aQueueBuilderTakesTheFlowControlOptionsOfAWholeValue() throws Exception {
        QueueOptions<String> shared = QueueOptions.<String>builder().maxInFlightPerGroup(2).groupWeight("a", 3)
                .rateLimit(5, Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> InMemoryDelayedQueue.<String>builder().maxInFlightPerGroup(1).options(shared))
                .isInstanceOf(IllegalStateException.class).hasMessage("maxInFlightPerGroup was already set");
        assertThatThrownBy(() -> InMemoryDelayedQueue.<String>builder().groupWeight("a", 1).options(shared))
                .isInstanceOf(IllegalStateException.class).hasMessage("groupWeight of group 'a' was already set");
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().options(shared)
                .groupWeight("b", 2).build()) {
            for (int i = 0; i < 4; i++) {
                q.offer(Message.of("a" + i).group("a"));
            }
            assertThat(q.poll(10, Duration.ZERO)).as("maxInFlightPerGroup(2) of the shared options").hasSize(2);
        }
    }
}
