package io.clockwork.json;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link JsonCodec} as the codec of an {@link InMemoryDelayedQueue}. */
class JsonCodecQueueTest {

    record Reminder(String user, String text, Instant due, Optional<Duration> snooze, Map<String, String> tags,
                    List<BigDecimal> amounts) {
    }

    private final ManualTicker ticker = new ManualTicker();

    private static Reminder reminder(String user) {
        return new Reminder(user, "pay — €12 💶", Instant.parse("2030-01-01T09:00:00Z"),
                Optional.of(Duration.ofMinutes(5)), Map.of("tenant", "acme", "channel", "mail"),
                List.of(new BigDecimal("12.00"), new BigDecimal("0.5")));
    }

    @Test
    void recordOfferedIsPolledBackEqualWhenDue() throws InterruptedException {
        try (DelayedQueue<Reminder> queue = InMemoryDelayedQueue.<Reminder>builder()
                .name("json-reminders")
                .codec(JsonCodec.of(Reminder.class))
                .ticker(ticker)
                .build()) {
            Reminder sent = reminder("ada");
            String id = queue.offer(sent, Duration.ofSeconds(30));

            assertThat(queue.poll(Duration.ZERO)).as("not due yet").isNull();
            ticker.advance(Duration.ofSeconds(30));

            Delivery<Reminder> delivery = queue.poll(Duration.ZERO);
            assertThat(delivery).isNotNull();
            assertThat(delivery.id()).isEqualTo(id);
            assertThat(delivery.value()).isEqualTo(sent).isNotSameAs(sent);
            assertThat(delivery.ack()).isTrue();
            assertThat(queue.stats().inFlight()).isZero();
        }
    }

    @Test
    void undecodablePayloadGoesToTheDeadLettersWithAReasonThatHidesIt() throws InterruptedException {
        JsonCodec<Reminder> json = JsonCodec.of(Reminder.class);
        // A producer of another version: it writes a field the consumer's type cannot read.
        Codec<Reminder> otherVersion = new Codec<>() {
            @Override
            public byte[] encode(Reminder value) {
                return ("{\"user\":\"" + value.user() + "\",\"due\":\"tomorrow, password hunter2\"}")
                        .getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public Reminder decode(byte[] bytes) {
                return json.decode(bytes);
            }
        };
        try (DelayedQueue<Reminder> queue = InMemoryDelayedQueue.<Reminder>builder()
                .name("json-dead")
                .codec(otherVersion)
                .ticker(ticker)
                .build()) {
            String id = queue.offer(reminder("bob"), Duration.ZERO);

            assertThat(queue.poll(Duration.ZERO)).isNull();
            List<DeadLetter> dead = queue.deadLetters(10);
            assertThat(dead).singleElement().satisfies(letter -> {
                assertThat(letter.id()).isEqualTo(id);
                assertThat(letter.reason()).contains(Reminder.class.getName()).contains("$.due")
                        .doesNotContain("hunter2");
            });
        }
    }

    @Test
    void nullIsRefusedBeforeTheCodec() {
        try (DelayedQueue<Reminder> queue = InMemoryDelayedQueue.<Reminder>builder()
                .name("json-null")
                .codec(JsonCodec.of(Reminder.class))
                .ticker(ticker)
                .build()) {
            assertThatThrownBy(() -> queue.offer(null, Duration.ZERO)).isInstanceOf(NullPointerException.class);
        }
    }
}
