package io.clockwork.redis;

import io.clockwork.redis.fixture.ServerClock;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;

import static io.clockwork.redis.CompactStoreTesting.list;
import static io.clockwork.redis.CompactStoreTesting.number;
import static io.clockwork.redis.CompactStoreTesting.prefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The compact store (include/cold.lua) seen from Redis itself: what it writes for messages due far ahead, that its
 * index shards split so that each stays a listpack, that every lookup by id finds a compact message, that a chunk
 * moves into the per-message layout when its second starts, and that {@link RedisDelayedQueue#delete()} removes it.
 */
@ExtendWith(RedisExtension.class)
class RedisCompactStoreIT {

    private static final Duration HOUR = Duration.ofHours(1);

    private final RedisServerProcess redis;

    RedisCompactStoreIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    private RedisDelayedQueue<String> queue(String name, Duration compactAfter) {
        return CompactStoreTesting.queue(redis, name, compactAfter);
    }

    /** Offers values "v0", "v1", ... with the given ids, due in an hour, in one call: one due time, one window. */
    private static void offerDueTogether(RedisDelayedQueue<String> q, int count, IntFunction<String> id) {
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(Message.of("v" + i).id(id.apply(i)).delay(HOUR));
        }
        q.offerAll(batch);
    }

    @Test
    void messagesDueFarAheadLiveInChunksAndAnIndexOfListpackShards() {
        String name = "compact-layout";
        int count = 6_000;
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            for (int i = 0; i < count; i += 1_000) {
                List<Message<String>> batch = new ArrayList<>();
                for (int j = i; j < i + 1_000; j++) {
                    batch.add(Message.of("payload-" + j).id("order-" + j).delay(HOUR.plusMillis(j)));
                }
                q.offerAll(batch);
            }
            q.offer(Message.of("soon").id("soon").delay(Duration.ofSeconds(5)));

            String p = prefix(name);
            assertThat(number(redis.call("HLEN", p + "meta"))).as("only the message due in 5 s has a META field "
                    + "(besides the encoding keeper)").isEqualTo(2);
            assertThat(number(redis.call("ZCARD", p + "pending"))).isEqualTo(2);
            assertThat(number(redis.call("HGET", p + "cold", "n"))).isEqualTo(count);
            long level = number(redis.call("HGET", p + "cold", "L"));
            long split = number(redis.call("HGET", p + "cold", "s"));
            long shards = (1L << level) + split;
            assertThat(shards).as("about 24 ids per shard").isBetween(count / 24L - 1, count / 24L + 1);
            long indexed = 0;
            for (long b = 0; b < shards; b++) {
                String key = p + "x:" + b;
                long len = number(redis.call("HLEN", key));
                indexed += len;
                assertThat(len).as(key).isLessThanOrEqualTo(128);
                if (len > 0) { // ids that differ only in their last byte share a shard, so a shard may be empty
                    // Redis 7 calls the compact hash encoding listpack, 6.2 ziplist.
                    assertThat(redis.call("OBJECT", "ENCODING", key)).as(key).isIn("listpack", "ziplist");
                }
            }
            assertThat(indexed).isEqualTo(count);
            long chunked = 0;
            for (Object chunk : list(redis.call("ZRANGE", p + "chunks", "0", "-1"))) {
                long len = number(redis.call("LLEN", p + "c:" + chunk));
                assertThat(len).isBetween(1L, 128L);
                chunked += len;
            }
            assertThat(chunked).isEqualTo(count);

            QueueStats stats = q.stats();
            assertThat(stats.delayed()).isEqualTo(count + 1);
            assertThat(stats.nextDueIn()).hasValueSatisfying(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(5)));
            assertThat(RedisQueueBrowser.of(q).find("order-4321")).hasValueSatisfying(e -> {
                assertThat(e.state()).isEqualTo(RedisQueueBrowser.State.DELAYED);
                assertThat(new String(e.payload())).isEqualTo("payload-4321");
            });
        }
    }

    @Test
    void everyLookupByIdFindsACompactMessage() throws Exception {
        String name = "compact-lookups";
        int count = 3_000;
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            for (int i = 0; i < count; i += 100) {
                List<Message<String>> batch = new ArrayList<>();
                for (int j = i; j < i + 100; j++) {
                    batch.add(Message.of("v" + j).id("id-" + j).delay(HOUR));
                }
                q.offerAll(batch);
            }
            for (int i = 0; i < count; i += 7) {
                assertThat(q.offer(Message.of("again").id("id-" + i).delay(HOUR)).outcome())
                        .as("dedup of id-%d", i).isEqualTo(Offered.Outcome.KEPT);
            }
            Set<String> cancelled = new HashSet<>();
            for (int i = 0; i < count; i += 3) {
                assertThat(q.cancel("id-" + i)).as("cancel id-%d", i).isTrue();
                assertThat(q.cancel("id-" + i)).isFalse();
                cancelled.add("id-" + i);
            }
            assertThat(q.stats().delayed()).isEqualTo(count - cancelled.size());
            assertThat(q.offer(Message.of("replaced").id("id-1").delay(Duration.ZERO)
                    .onConflict(Message.Conflict.REPLACE)).outcome()).isEqualTo(Offered.Outcome.REPLACED);
            assertThat(q.reschedule("id-2", Duration.ZERO)).isTrue();
            assertThat(q.offer(Message.of("ignored").id("id-4").delay(Duration.ofHours(2))
                    .onConflict(Message.Conflict.EXTEND)).outcome()).isEqualTo(Offered.Outcome.EXTENDED);

            List<Delivery<String>> due = q.poll(10, Duration.ZERO);
            assertThat(due).extracting(Delivery::id).containsExactly("id-1", "id-2");
            assertThat(due.get(0).value()).isEqualTo("replaced");
            assertThat(due.get(1).value()).isEqualTo("v2");
            due.forEach(Delivery::ack);
            assertThat(q.stats().delayed()).isEqualTo(count - cancelled.size() - 2);
            assertThat(q.stats().lost()).isZero();
        }
    }

    @Test
    void replacingAMessageOutOfAChunkThatThisCallAppendsToKeepsTheAppendedOne() {
        String name = "compact-same-chunk";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            q.offer(Message.of("first").id("x").delay(HOUR));
            // One call: "a" is appended to x's chunk, then x leaves it (the chunk's only stored entry).
            q.offerAll(List.of(Message.of("a").id("a").delay(HOUR),
                    Message.of("now").id("x").delay(Duration.ZERO).onConflict(Message.Conflict.REPLACE)));
            assertThat(q.stats().delayed()).isEqualTo(1);
            assertThat(q.stats().nextDueIn()).hasValueSatisfying(d -> assertThat(d).isGreaterThan(Duration.ofMinutes(59)));
            assertThat(RedisQueueBrowser.of(q).find("a")).isPresent();
            assertThat(number(redis.call("ZCARD", prefix(name) + "chunks"))).isEqualTo(1);
            assertThat(q.cancel("a")).isTrue();
            assertThat(number(redis.call("EXISTS", prefix(name) + "chunks", prefix(name) + "open"))).isZero();
        }
    }

    @Test
    void idsIndexedInTheCallThatEmptiesTheStoreStayFindable() throws Exception {
        String name = "compact-refill";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            q.offer(Message.of("only").id("only").delay(HOUR));
            List<Message<String>> batch = new ArrayList<>();
            for (int i = 0; i < 500; i++) { // enough to split the index while the call runs
                batch.add(Message.of("v").id("new-" + i).delay(HOUR));
            }
            batch.add(Message.of("now").id("only").delay(Duration.ZERO).onConflict(Message.Conflict.REPLACE));
            q.offerAll(batch); // moves "only" out of the store (its count reaches 0) after 500 ids were indexed
            assertThat(number(redis.call("HGET", prefix(name) + "cold", "n"))).isEqualTo(500);
            for (int i = 0; i < 500; i++) {
                assertThat(q.cancel("new-" + i)).as("new-%d", i).isTrue();
            }
            assertThat(q.poll(Duration.ZERO).id()).isEqualTo("only");
            assertThat(redis.call("HGET", prefix(name) + "cold", "n")).isNull();
        }
    }

    @Test
    void aRemovedEntryBecomesATombstoneSoTheOthersKeepTheirPositionsAndTheLastLiveOneDeletesTheChunk() {
        String name = "compact-tombstones";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            offerDueTogether(q, 10, i -> "t-" + i); // one chunk
            String p = prefix(name);
            String chunk = list(redis.call("ZRANGE", p + "chunks", "0", "-1")).get(0).toString();
            for (int i = 0; i < 10; i += 2) {
                assertThat(q.cancel("t-" + i)).isTrue();
            }
            assertThat(number(redis.call("LLEN", p + "c:" + chunk))).isEqualTo(10);
            assertThat(redis.call("LINDEX", p + "c:" + chunk, "2")).isEqualTo("");
            assertThat(number(redis.call("HGET", p + "cold", chunk))).as("its tombstones").isEqualTo(5);
            assertThat(q.stats().delayed()).isEqualTo(5);
            RedisQueueBrowser browser = RedisQueueBrowser.of(q);
            for (int i = 1; i < 10; i += 2) {
                String id = "t-" + i;
                assertThat(browser.find(id)).as(id).hasValueSatisfying(e -> assertThat(new String(e.payload()))
                        .isEqualTo("v" + id.substring(2)));
                assertThat(browser.find("t-" + (i - 1))).isEmpty();
            }
            assertThat(browser.page(RedisQueueBrowser.State.DELAYED, java.util.Optional.empty(), 10).entries())
                    .extracting(RedisQueueBrowser.Entry::id).containsExactly("t-1", "t-3", "t-5", "t-7", "t-9");
            for (int i = 1; i < 10; i += 2) {
                assertThat(q.cancel("t-" + i)).isTrue();
            }
            assertThat(number(redis.call("EXISTS", p + "c:" + chunk, p + "chunks", p + "open"))).isZero();
            assertThat(redis.call("HGET", p + "cold", chunk)).isNull();
            assertThat(q.stats().total()).isZero();
            assertThat(q.stats().nextDueIn()).isEmpty();
        }
    }

    @Test
    void pagesOfDelayedCompactMessagesSkipTombstonesAcrossChunks() {
        String name = "compact-pages";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            offerDueTogether(q, 300, i -> String.format("p-%03d", i)); // chunks of 128, 128 and 44
            assertThat(number(redis.call("ZCARD", prefix(name) + "chunks"))).isEqualTo(3);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                String id = String.format("p-%03d", i);
                if (i % 3 == 0) {
                    assertThat(q.cancel(id)).isTrue();
                } else {
                    expected.add(id);
                }
            }
            RedisQueueBrowser browser = RedisQueueBrowser.of(q);
            List<String> listed = new ArrayList<>();
            java.util.Optional<String> cursor = java.util.Optional.empty();
            do {
                RedisQueueBrowser.Page page = browser.page(RedisQueueBrowser.State.DELAYED, cursor, 37);
                assertThat(page.total()).isEqualTo(200);
                page.entries().forEach(e -> listed.add(e.id()));
                cursor = page.next();
            } while (cursor.isPresent());
            assertThat(listed).isEqualTo(expected);
        }
    }

    @Test
    void aChunkMovesIntoThePerMessageLayoutWhenItsSecondStartsAndKeepsOfferOrder() throws Exception {
        String name = "compact-promotion";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ZERO)) {
            List<Message<String>> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                batch.add(Message.of("m" + i).id("same-due-" + i).delay(Duration.ofMillis(1_500)));
            }
            q.offerAll(batch); // one call: one due time, three chunks of at most 128
            assertThat(number(redis.call("ZCARD", prefix(name) + "chunks"))).isEqualTo(3);
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (got.size() < 300 && System.nanoTime() < deadline) {
                for (Delivery<String> d : q.poll(50, Duration.ofSeconds(1))) {
                    got.add(d.id());
                    d.ack();
                }
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                expected.add("same-due-" + i);
            }
            assertThat(got).isEqualTo(expected);
            assertThat(number(redis.call("EXISTS", prefix(name) + "chunks", prefix(name) + "x:0",
                    prefix(name) + "open"))).isZero();
            assertThat(redis.call("HGET", prefix(name) + "cold", "n")).as("reset when empty").isNull();
        }
    }

    @Test
    void aStormOfDueCompactMessagesIsMovedInBoundedStepsAndDeliveredInOrder() throws Exception {
        String name = "compact-storm";
        int count = 6_000;
        try (RedisDelayedQueue<String> q = queue(name, Duration.ZERO)) {
            for (int i = 0; i < count; i += 1_000) {
                List<Message<String>> batch = new ArrayList<>();
                for (int j = i; j < i + 1_000; j++) {
                    batch.add(Message.of("v" + j).id(String.format("storm-%05d", j)).delay(Duration.ofMillis(1_500)));
                }
                q.offerAll(batch);
            }
            try (ServerClock clock = new ServerClock(redis.uri())) {
                clock.await(Duration.ofMillis(1_600)); // the last batch, offered before this wait, is due after it
            }
            // One stats call moves whole chunks (of at most 128) until at least 5,120 messages moved; the rest count
            // as delayed, due now.
            QueueStats stats = q.stats();
            assertThat(stats.ready()).isBetween(5_120L, 5_120L + 127);
            assertThat(stats.nextDueIn()).contains(Duration.ZERO);
            assertThat(stats.ready() + stats.delayed()).isEqualTo(count);
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (got.size() < count && System.nanoTime() < deadline) {
                List<Delivery<String>> batch = q.poll(1_000, Duration.ofSeconds(1));
                batch.forEach(d -> got.add(d.id()));
                q.ackAll(batch);
            }
            assertThat(got).hasSize(count).isSorted(); // offered in id order, all due at once
            assertThat(q.stats().total()).isZero();
        }
    }

    @Test
    void anEvictedChunkIsCountedLostNotWedged() throws Exception {
        String name = "compact-evicted";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ZERO)) {
            q.offer(Message.of("gone").id("gone").delay(Duration.ofMillis(1_200)));
            q.offer(Message.of("also-gone").id("also-gone").delay(Duration.ofMillis(1_200)));
            q.offer(Message.of("kept").id("kept").delay(Duration.ofMillis(3_500)));
            String first = list(redis.call("ZRANGE", prefix(name) + "chunks", "0", "0")).get(0).toString();
            redis.call("DEL", prefix(name) + "c:" + first); // what Redis's eviction of that key does
            assertThat(q.cancel("gone")).as("the index names a chunk that no longer holds it").isFalse();
            assertThat(q.stats().lost()).isGreaterThanOrEqualTo(1);
            Set<String> delivered = new HashSet<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!delivered.contains("kept") && System.nanoTime() < deadline) {
                Delivery<String> d = q.poll(Duration.ofSeconds(1));
                if (d != null) {
                    delivered.add(d.id());
                    d.ack();
                }
            }
            assertThat(delivered).contains("kept").doesNotContain("gone");
        }
    }

    @Test
    void deleteRemovesTheChunksAndTheIndex() {
        String name = "compact-delete";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            for (int i = 0; i < 2_000; i += 1_000) {
                List<Message<String>> batch = new ArrayList<>();
                for (int j = i; j < i + 1_000; j++) {
                    batch.add(Message.of("v").id("d-" + j).delay(HOUR.plusSeconds(j % 5)));
                }
                q.offerAll(batch);
            }
            assertThat(list(redis.call("KEYS", "cw:{" + name + ":*")).size()).isGreaterThan(50);
            long deleted = q.delete();
            assertThat(deleted).isGreaterThan(50);
            assertThat(list(redis.call("KEYS", "cw:{" + name + ":*"))).isEmpty();
        }
    }

    @Test
    void aCompactMessageIsDueAtTheServersClockPlusTheDelayUpToTheLongestDelay() {
        String name = "compact-clock";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ZERO);
             ServerClock clock = new ServerClock(redis.uri())) {
            for (Duration delay : List.of(Duration.ofSeconds(10), DelayedQueue.MAX_DELAY)) {
                String id = "at-" + delay.toMillis();
                long before = clock.nowMillis();
                q.offer(Message.of("v").id(id).delay(delay));
                long after = clock.nowMillis() + 1; // a delay counts from the server's clock rounded up to 1 ms
                assertThat(RedisQueueBrowser.of(q).find(id)).hasValueSatisfying(e -> assertThat(e.at().toEpochMilli())
                        .isBetween(before + delay.toMillis(), after + delay.toMillis()));
            }
            assertThat(q.stats().nextDueIn()).hasValueSatisfying(d ->
                    assertThat(d).isBetween(Duration.ofSeconds(9), Duration.ofSeconds(10)));
            assertThat(q.stats().delayed()).isEqualTo(2);
        }
    }

    @Test
    void compactAfterOutsideItsRangeIsRefused() {
        assertThatThrownBy(() -> RedisDelayedQueue.builder(redis.uri(), "x", Codec.string())
                .compactAfter(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("compactAfter");
        assertThatThrownBy(() -> RedisDelayedQueue.builder(redis.uri(), "x", Codec.string()).compactAfter(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("compactAfter");
        assertThatThrownBy(() -> RedisDelayedQueue.builder(redis.uri(), "x", Codec.string())
                .compactAfter(Duration.ZERO).compactAfter(Duration.ZERO))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("compactAfter");
    }
}
