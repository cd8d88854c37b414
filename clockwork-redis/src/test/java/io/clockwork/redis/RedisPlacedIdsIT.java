package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.clockwork.redis.CompactStoreTesting.list;
import static io.clockwork.redis.CompactStoreTesting.number;
import static io.clockwork.redis.CompactStoreTesting.prefix;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Placed ids (include/cold.lua): a generated id of a message filed in the compact store names its chunk and position,
 * so that the store keeps no index entry for it and a lookup reads the one entry there; the id still deduplicates
 * the offer's retries, belongs to its client part's partition, and keeps finding its message after a reschedule,
 * replace or extend moves it, and after promotion.
 */
@ExtendWith(RedisExtension.class)
class RedisPlacedIdsIT {

    private static final Duration HOUR = Duration.ofHours(1);

    private final RedisServerProcess redis;

    RedisPlacedIdsIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    private RedisDelayedQueue<String> queue(String name, Duration compactAfter) {
        return CompactStoreTesting.queue(redis, name, compactAfter);
    }

    private static List<String> values(String stem, int count) {
        List<String> v = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            v.add(stem + i);
        }
        return v;
    }

    /** The entry a placed id names: its chunk's element at its position. */
    private String entryAt(String name, String id) {
        String[] place = id.substring(IdGenerator.clientPartLength(id) + 1).split("\\.");
        return (String) redis.call("LINDEX", prefix(name) + "c:" + place[0] + "." + place[1],
                Long.toString(Long.parseLong(place[2], 16)));
    }

    @Test
    void generatedIdsOfMessagesDueFarAheadNameTheirPlaceAndNeedNoIndex() throws Exception {
        String name = "placed-layout";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            List<String> ids = new ArrayList<>(q.offerAll(values("b", 300), HOUR));
            ids.addAll(q.offerAllAsync(values("c", 50), HOUR.plusSeconds(5)).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS));
            ids.add(q.offer("single", HOUR));
            ids.add(q.offerAsync("async", HOUR).toCompletableFuture().get(10, TimeUnit.SECONDS));
            Offered message = q.offer(Message.of("message").delay(HOUR));
            assertThat(message.outcome()).isEqualTo(Offered.Outcome.ADDED);
            ids.add(message.id());
            // Sooner than compactAfter (10 s), and still delayed when the test ends on a loaded machine.
            String soon = q.offer("soon", Duration.ofSeconds(8));

            assertThat(IdGenerator.clientPartLength(soon)).as("due sooner than compactAfter: not placed").isEqualTo(-1);
            assertThat(new HashSet<>(ids)).hasSize(ids.size());
            for (String id : ids) {
                assertThat(IdGenerator.clientPartLength(id)).as(id).isGreaterThan(23);
                String clientPart = id.substring(0, IdGenerator.clientPartLength(id));
                assertThat(entryAt(name, id)).as(id).contains(",p" + clientPart.length() + "," + clientPart);
            }
            String p = prefix(name);
            assertThat(number(redis.call("HGET", p + "cold", "n"))).isEqualTo(ids.size());
            assertThat(redis.call("HGET", p + "cold", "i")).as("indexed ids").isEqualTo("0");
            assertThat(list(redis.call("KEYS", p + "x:*"))).as("index shards").isEmpty();
            assertThat(number(redis.call("EXISTS", p + "placed"))).as("no retries: no placed stream").isZero();

            RedisQueueBrowser browser = RedisQueueBrowser.of(q);
            assertThat(browser.find(ids.get(7))).hasValueSatisfying(e -> {
                assertThat(e.state()).isEqualTo(RedisQueueBrowser.State.DELAYED);
                assertThat(new String(e.payload())).isEqualTo("b7");
            });
            List<String> listed = new ArrayList<>();
            Optional<String> cursor = Optional.empty();
            do {
                RedisQueueBrowser.Page page = browser.page(RedisQueueBrowser.State.DELAYED, cursor, 100);
                page.entries().forEach(e -> listed.add(e.id()));
                cursor = page.next();
            } while (cursor.isPresent());
            List<String> delayed = new ArrayList<>(ids);
            delayed.add(soon);
            assertThat(listed).containsExactlyInAnyOrderElementsOf(delayed);

            assertThat(q.offer(Message.of("again").id(ids.get(3)).delay(HOUR)).outcome())
                    .as("an offer under a placed id finds it").isEqualTo(Offered.Outcome.KEPT);
            for (String id : ids) {
                assertThat(q.cancel(id)).as(id).isTrue();
                assertThat(q.cancel(id)).as(id).isFalse();
            }
            assertThat(q.stats().delayed()).isEqualTo(1);
            assertThat(q.stats().lost()).isZero();
            assertThat(number(redis.call("EXISTS", p + "chunks", p + "open"))).isZero();
            assertThat(redis.call("HGET", p + "cold", "n")).as("the store's state reset when empty").isNull();
        }
    }

    @Test
    void placedMessagesAreDeliveredUnderTheIdsTheirOffersReturned() throws Exception {
        String name = "placed-delivery";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ZERO)) {
            List<String> ids = q.offerAll(values("d", 200), Duration.ofMillis(1_200));
            assertThat(ids).allSatisfy(id -> assertThat(IdGenerator.clientPartLength(id)).isPositive());
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (got.size() < ids.size() && System.nanoTime() < deadline) {
                List<Delivery<String>> batch = q.poll(100, Duration.ofSeconds(1));
                batch.forEach(d -> got.add(d.id()));
                assertThat(q.ackAll(batch)).doesNotContain(false);
            }
            assertThat(got).isEqualTo(ids);
            assertThat(q.stats().total()).isZero();
            assertThat(q.cancel(ids.get(0))).as("delivered and acked").isFalse();
        }
    }

    @Test
    void aPlacedMessageThatMovesIsFoundThroughTheIndexUnderTheSameId() throws Exception {
        String name = "placed-moves";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            List<String> ids = q.offerAll(values("m", 4), HOUR);
            String rescheduled = ids.get(0);
            String replaced = ids.get(1);
            String extended = ids.get(2);
            String dueNow = ids.get(3);
            assertThat(q.reschedule(rescheduled, Duration.ofHours(2))).isTrue();
            assertThat(q.offer(Message.of("new").id(replaced).delay(Duration.ofHours(3))
                    .onConflict(Message.Conflict.REPLACE)).outcome()).isEqualTo(Offered.Outcome.REPLACED);
            assertThat(q.offer(Message.of("ignored").id(extended).delay(Duration.ofHours(4))
                    .onConflict(Message.Conflict.EXTEND)).outcome()).isEqualTo(Offered.Outcome.EXTENDED);
            String p = prefix(name);
            assertThat(number(redis.call("HGET", p + "cold", "i"))).as("moved: indexed").isEqualTo(3);
            for (String id : List.of(rescheduled, replaced, extended)) {
                assertThat(entryAt(name, id)).as("its old place, a tombstone").isEmpty();
            }
            RedisQueueBrowser browser = RedisQueueBrowser.of(q);
            assertThat(browser.find(replaced)).hasValueSatisfying(e -> assertThat(new String(e.payload()))
                    .isEqualTo("new"));
            assertThat(browser.find(extended)).hasValueSatisfying(e -> assertThat(new String(e.payload()))
                    .isEqualTo("m2"));
            assertThat(browser.find(rescheduled)).hasValueSatisfying(e -> assertThat(e.at())
                    .isAfter(java.time.Instant.now().plus(Duration.ofMinutes(110))));

            assertThat(q.reschedule(dueNow, Duration.ZERO)).isTrue();
            Delivery<String> d = q.poll(Duration.ofSeconds(5));
            assertThat(d).isNotNull();
            assertThat(d.id()).isEqualTo(dueNow);
            assertThat(d.value()).isEqualTo("m3");
            assertThat(d.ack()).isTrue();

            for (String id : List.of(rescheduled, replaced, extended)) {
                assertThat(q.cancel(id)).as(id).isTrue();
            }
            assertThat(q.stats().total()).isZero();
            assertThat(list(redis.call("KEYS", p + "x:*"))).isEmpty();
            assertThat(q.stats().lost()).isZero();
        }
    }

    @Test
    void aChosenIdShapedLikeAPlacedOneIsAnOrdinaryId() {
        String name = "placed-lookalike";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            String real = q.offer("real", HOUR);
            String clientPart = real.substring(0, IdGenerator.clientPartLength(real));
            String place = real.substring(clientPart.length() + 1);
            // The same place under another client part, and the same client part at another place.
            String otherPart = "A".repeat(22) + "-1." + place;
            String otherPlace = clientPart + "." + place.substring(0, place.lastIndexOf('.')) + ".7f";
            for (String id : List.of(otherPart, otherPlace)) {
                assertThat(q.cancel(id)).as(id).isFalse();
                assertThat(q.offer(Message.of("chosen").id(id).delay(HOUR)).outcome()).as(id)
                        .isEqualTo(Offered.Outcome.ADDED);
                assertThat(RedisQueueBrowser.of(q).find(id)).as(id).hasValueSatisfying(e ->
                        assertThat(new String(e.payload())).isEqualTo("chosen"));
            }
            assertThat(RedisQueueBrowser.of(q).find(real)).hasValueSatisfying(e ->
                    assertThat(new String(e.payload())).isEqualTo("real"));
            assertThat(q.cancel(otherPart)).isTrue();
            assertThat(q.cancel(otherPlace)).isTrue();
            assertThat(q.cancel(real)).isTrue();
            assertThat(q.stats().total()).isZero();
        }
    }

    @Test
    void aPartitionedQueueFindsEachPlacedIdInItsClientPartsPartition() {
        String name = "placed-partitions";
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(4).compactAfter(Duration.ofSeconds(10)).build()) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                ids.addAll(q.offerAll(values("p" + i + "-", 25), HOUR));
            }
            for (int i = 0; i < 20; i++) {
                ids.add(q.offer("single" + i, HOUR));
            }
            PartitionSelector selector = new PartitionSelector(4);
            Set<Integer> used = new HashSet<>();
            for (String id : ids) {
                int p = selector.partitionOf(id);
                assertThat(p).isEqualTo(selector.partitionOf(id.substring(0, IdGenerator.clientPartLength(id))));
                used.add(p);
                assertThat(redis.call("LINDEX", KeyLayout.prefix(name, p) + "c:" + id.split("\\.")[1] + "."
                        + id.split("\\.")[2], Long.toString(Long.parseLong(id.split("\\.")[3], 16))))
                        .as(id).isNotNull();
            }
            assertThat(used).hasSize(4);
            assertThat(q.stats().delayed()).isEqualTo(ids.size());
            for (String id : ids) {
                assertThat(q.cancel(id)).as(id).isTrue();
            }
            assertThat(q.stats().total()).isZero();
        }
    }

    @ParameterizedTest(name = "{0} partition(s)")
    @ValueSource(ints = {1, 3})
    void aRetryAfterALostReplyFindsWhatItsFirstAttemptPlaced(int partitions) throws Exception {
        String name = "placed-retry-" + partitions;
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(partitions).compactAfter(Duration.ofSeconds(10)).commandTimeout(Duration.ofMillis(300))
                .retryOnConnectionLoss(Duration.ofSeconds(20)).build()) {
            q.offer("warm-up", HOUR); // scripts loaded and the connection up before the pause
            redis.pause();
            CompletableFuture<List<String>> batch;
            CompletableFuture<String> single;
            try {
                // Sent while Redis is frozen: each attempt times out in the client and is sent again, and Redis runs
                // them all once it resumes, the first attempt first.
                batch = CompletableFuture.supplyAsync(() -> q.offerAll(values("r", 50), HOUR));
                single = q.offerAsync("alone", HOUR).toCompletableFuture();
                Reliability.hold(Duration.ofMillis(1_500));
                assertThat(batch).as("no reply while Redis is frozen").isNotDone();
            } finally {
                redis.resume();
            }
            List<String> ids = new ArrayList<>(batch.get(20, TimeUnit.SECONDS));
            ids.add(single.get(20, TimeUnit.SECONDS));
            assertThat(q.stats().delayed()).as("each message filed once").isEqualTo(52);
            List<List<Object>> entries = new ArrayList<>();
            for (int part = 0; part < partitions; part++) {
                String placed = KeyLayout.prefix(name, part) + "placed";
                if (number(redis.call("EXISTS", placed)) == 1) {
                    assertThat(number(redis.call("PTTL", placed))).isPositive();
                }
                for (Object entry : list(redis.call("XRANGE", placed, "-", "+"))) {
                    entries.add(list(list(entry).get(1)));
                }
            }
            // The batch's first attempt: its counters as the client described them and its places by message number;
            // the single offer's (a group commit): its counter and place read from its id, as a run.
            assertThat(entries).anySatisfy(f -> {
                assertThat(f.get(2)).isEqualTo("c");
                assertThat(f.get(3).toString().length()).as("first counter and 49 rises").isLessThan(70);
                assertThat(f.get(5).toString()).as("50 places one after another").endsWith(",50").hasSizeLessThan(40);
            });
            assertThat(entries).anySatisfy(f -> assertThat(f.get(2)).isEqualTo("r"));
            for (String id : ids) {
                assertThat(IdGenerator.clientPartLength(id)).as(id).isPositive();
                assertThat(q.cancel(id)).as(id).isTrue();
            }
            assertThat(q.stats().total()).as("the warm-up message").isEqualTo(1);
        }
    }

    @Test
    void aCallThatEmptiesTheStoreAndThenPlacesMessagesCountsNoIndexedIds() throws Exception {
        String name = "placed-refill";
        try (RedisDelayedQueue<String> q = queue(name, Duration.ofSeconds(10))) {
            q.offer(Message.of("only").id("only").delay(HOUR));
            String p = prefix(name);
            assertThat(redis.call("HGET", p + "cold", "i")).isEqualTo("1");
            // One call: "only" leaves the store (which resets its state), then a generated id is placed in it.
            List<Offered> offered = q.offerAll(List.of(
                    Message.of("now").id("only").delay(Duration.ZERO).onConflict(Message.Conflict.REPLACE),
                    Message.of("far").delay(HOUR)));
            assertThat(offered).extracting(Offered::outcome)
                    .containsExactly(Offered.Outcome.REPLACED, Offered.Outcome.ADDED);
            assertThat(redis.call("HGET", p + "cold", "n")).isEqualTo("1");
            assertThat(redis.call("HGET", p + "cold", "i")).as("indexed ids").isEqualTo("0");
            assertThat(q.cancel(offered.get(1).id())).isTrue();
            assertThat(q.poll(Duration.ZERO).id()).isEqualTo("only");
            assertThat(list(redis.call("HMGET", p + "cold", "n", "i"))).as("the store's state reset")
                    .containsOnlyNulls();
        }
    }

}
