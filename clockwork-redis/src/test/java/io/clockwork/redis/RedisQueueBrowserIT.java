package io.clockwork.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.redis.RedisQueueBrowser.Entry;
import io.clockwork.redis.RedisQueueBrowser.Page;
import io.clockwork.redis.RedisQueueBrowser.State;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The registry lists every built queue; the browser pages, finds and samples a queue without changing it. */
@ExtendWith(RedisExtension.class)
class RedisQueueBrowserIT {

    private final RedisServerProcess redis;

    RedisQueueBrowserIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Test
    void everyBuiltQueueIsListedInTheRegistry() {
        try (RedisDelayedQueue<String> a = RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string()).build();
             RedisDelayedQueue<String> b = RedisDelayedQueue.builder(redis.uri(), "mail", Codec.string())
                     .partitions(3).build();
             RedisQueueRegistry registry = RedisQueueRegistry.connect(redis.uri())) {
            assertThat(registry.names()).containsExactly("mail", "orders");
            assertThat(registry.forget("mail")).isTrue();
            assertThat(registry.names()).containsExactly("orders");
            a.delete();
            assertThat(registry.names()).isEmpty();
        }
    }

    @Test
    void pagesWalkEveryPartitionInScoreOrderWithoutRepeats() {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "paged", Codec.string())
                .partitions(4).build()) {
            for (int i = 0; i < 25; i++) {
                q.offer(Message.of("v" + i).id(String.format("m%02d", i)).delay(Duration.ofHours(1 + i)));
            }
            RedisQueueBrowser browser = RedisQueueBrowser.of(q);
            List<String> seen = new ArrayList<>();
            Optional<String> cursor = Optional.empty();
            int pages = 0;
            do {
                Page page = browser.page(State.DELAYED, cursor, 10);
                assertThat(page.total()).isEqualTo(25);
                page.entries().forEach(e -> seen.add(e.id()));
                cursor = page.next();
                pages++;
            } while (cursor.isPresent());
            assertThat(pages).isEqualTo(3);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                expected.add(String.format("m%02d", i));
            }
            assertThat(seen).isEqualTo(expected);
            assertThat(browser.page(State.READY, Optional.empty(), 10).entries()).isEmpty();
            assertThat(q.stats().delayed()).isEqualTo(25);
        }
    }

    @Test
    void entriesCarryStateAttemptsHeadersPayloadAndErrors() throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "detail", Codec.string())
                .maxAttempts(1).build()) {
            q.offer(Message.of("hello").id("a").header("tenant", "acme"));
            q.offer(Message.of("later").id("b").delay(Duration.ofMinutes(5)));
            q.offer(Message.of("doomed").id("c"));
            RedisQueueBrowser browser = RedisQueueBrowser.of(q);

            Entry a = browser.find("a").orElseThrow();
            assertThat(a.state()).isEqualTo(State.READY);
            assertThat(a.headers()).containsEntry("tenant", "acme");
            assertThat(new String(a.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
            assertThat(browser.find("b").orElseThrow().state()).isEqualTo(State.DELAYED);
            assertThat(browser.find("nope")).isEmpty();

            Delivery<String> first = q.poll(Duration.ofSeconds(1));
            assertThat(first.id()).isEqualTo("a");
            assertThat(browser.find("a").orElseThrow().state()).isEqualTo(State.IN_FLIGHT);
            Delivery<String> second = q.poll(Duration.ofSeconds(1));
            second.nack(Duration.ZERO); // maxAttempts 1: dead
            Entry c = browser.find("c").orElseThrow();
            assertThat(c.state()).isEqualTo(State.DEAD);
            assertThat(c.attempts()).isEqualTo(1);
            assertThat(c.error()).isNotEmpty();
            Page dead = browser.page(State.DEAD, Optional.empty(), 5);
            assertThat(dead.entries()).extracting(Entry::id).containsExactly("c");
            assertThat(dead.next()).isEmpty();
        }
    }

    @Test
    void headTellsTheOldestReadyAgeAndCountsSchedulings() throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "head", Codec.string())
                .partitions(2).build()) {
            RedisQueueBrowser browser = RedisQueueBrowser.of(q);
            assertThat(browser.head().oldestReady()).isEmpty();
            assertThat(browser.head().scheduled()).isZero();
            for (int i = 0; i < 6; i++) {
                q.offer("v" + i, Duration.ZERO);
            }
            q.offer("later", Duration.ofHours(1));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (browser.head().oldestReady().orElseThrow().toMillis() < 20 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(browser.head().oldestReady().orElseThrow()).isGreaterThanOrEqualTo(Duration.ofMillis(20));
            assertThat(browser.head().scheduled()).isEqualTo(7);
        }
    }

    @Test
    void aForeignCursorIsRefused() {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "cursor", Codec.string())
                .partitions(2).build()) {
            RedisQueueBrowser browser = RedisQueueBrowser.of(q);
            assertThatThrownBy(() -> browser.page(State.READY, Optional.of("3"), 10))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 offset(s)");
            assertThatThrownBy(() -> browser.page(State.READY, Optional.of("1.-4"), 10))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 or more");
            assertThatThrownBy(() -> browser.page(State.READY, Optional.empty(), 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("size must be 1 to 1,000");
        }
    }
}
