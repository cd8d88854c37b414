package io.clockwork.redis;

import io.clockwork.redis.fixture.ServerClock;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What only the Redis backend promises: scripts, the server's clock, wake-ups, partitions, connection loss. */
@ExtendWith(RedisExtension.class)
class RedisDelayedQueueRedisIT {

    /** A compactAfter that keeps every message in the per-message layout these tests read (RedisCompactStoreIT). */
    private static final Duration PER_MESSAGE = DelayedQueue.MAX_DELAY.plusMillis(1);

    /**
     * Scores of messages (due times in ms, below 2^53), not +inf, where keep.lua's member keeps a sorted set in
     * skiplist encoding (Lettuce sends an excluded infinite bound as included, hence a finite one).
     */
    private static final Range<Double> MESSAGES = Range.create(0d, 1e18);

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Duration FAR = Duration.ofHours(1);

    private final RedisServerProcess redis;
    private final ServerClock clock;
    private final List<RedisDelayedQueue<?>> queues = new ArrayList<>();
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "redis-it-background");
        t.setDaemon(true);
        return t;
    });

    RedisDelayedQueueRedisIT(RedisServerProcess redis) {
        this.redis = redis;
        this.clock = new ServerClock(redis.uri());
    }

    @AfterEach
    void cleanUp() {
        background.shutdownNow();
        queues.forEach(RedisDelayedQueue::close);
        clock.close();
    }

    private RedisDelayedQueue<String> track(RedisDelayedQueue<String> q) {
        queues.add(q);
        return q;
    }

    private static String uniqueName(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet();
    }

    private static long ceilMillis(long micros) {
        return micros / 1000 + (micros % 1000 > 0 ? 1 : 0);
    }

    private int blockedClients() {
        Matcher m = Pattern.compile("blocked_clients:(\\d+)").matcher((String) redis.call("INFO", "clients"));
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    // ---- scripts ----

    @Test
    void theFunctionLibraryIsLoadedOnceAndAgainAfterFunctionFlush() throws Exception {
        assumeTrue(redis.hasFunctions(), "Redis Functions need Redis 7.0; this server runs the queue as scripts");
        redis.call("FUNCTION", "FLUSH");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("functions"),
                Codec.string()).build());
        assertThat(q.runsFunctions()).as("Redis 7: the operations run as functions").isTrue();
        assertThat(q.scriptLoads()).as("the library loaded at build").isOne();
        assertThat(String.valueOf(redis.call("FUNCTION", "LIST"))).contains(FunctionLibrary.NAME);

        for (int i = 0; i < 20; i++) {
            q.offer("v" + i, Duration.ZERO);
            assertThat(q.poll(Duration.ZERO).ack()).isTrue();
            q.stats();
        }
        assertThat(q.scriptLoads()).as("no reloads while the server keeps it").isOne();

        redis.call("FUNCTION", "FLUSH");
        String id = q.offer("after flush", Duration.ZERO);
        assertThat(q.scriptLoads()).as("reloaded after 'Function not found'").isEqualTo(2);
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d.id()).isEqualTo(id);
        assertThat(d.ack()).isTrue();
        assertThat(q.scriptLoads()).as("the library holds every operation: no more loads").isEqualTo(2);

        RedisDelayedQueue<String> other = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("functions"),
                Codec.string()).build());
        assertThat(other.scriptLoads()).as("a second client finds the library there").isZero();
    }

    @Test
    void whereFunctionsAreNotAllowedTheScriptsAreLoadedOnceAndReloadedAfterScriptFlush() throws Exception {
        // On Redis 6.2 (no Functions) the client runs scripts whatever the user may do.
        redis.call("ACL", "SETUSER", "scripts-only", "on", ">pw", "~*", "&*", "+@all");
        if (redis.hasFunctions()) {
            redis.call("ACL", "SETUSER", "scripts-only", "-fcall", "-function");
        }
        try {
            redis.call("SCRIPT", "FLUSH");
            redis.call("CONFIG", "RESETSTAT");
            RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(
                    "redis://scripts-only:pw@127.0.0.1:" + redis.port(), uniqueName("scripts"), Codec.string())
                    .build());
            assertThat(q.runsFunctions()).as("FCALL refused: scripts").isFalse();
            // open.lua, which the build runs before it preloads, loads itself on meeting NOSCRIPT, then every script.
            int scripts = Script.values().length + 1;
            assertThat(q.scriptLoads()).as("preloaded at build").isEqualTo(scripts);

            for (int i = 0; i < 20; i++) {
                q.offer("v" + i, Duration.ZERO);
                assertThat(q.poll(Duration.ZERO).ack()).isTrue();
                q.stats();
            }
            assertThat(q.scriptLoads()).as("no reloads while the server keeps them").isEqualTo(scripts);
            String info = (String) redis.call("INFO", "commandstats");
            Matcher loads = Pattern.compile("cmdstat_script\\|load:calls=(\\d+)").matcher(info);
            if (loads.find()) { // Redis 7 counts subcommands apart; 6.2 lumps all SCRIPT calls together
                assertThat(Integer.parseInt(loads.group(1))).isEqualTo(scripts);
            }

            redis.call("SCRIPT", "FLUSH");
            String id = q.offer("after flush", Duration.ZERO);
            assertThat(q.scriptLoads()).as("offer.lua reloaded after NOSCRIPT").isEqualTo(scripts + 1);
            Delivery<String> d = q.poll(Duration.ZERO);
            assertThat(d.id()).isEqualTo(id);
            assertThat(d.ack()).isTrue();
            assertThat(q.scriptLoads()).as("poll.lua and ack.lua too, each once").isEqualTo(scripts + 3);
        } finally {
            redis.call("ACL", "DELUSER", "scripts-only");
        }
    }

    @Test
    void queuesWithDifferentSettingsOnOneServerEachKeepTheirOwnInEveryCall() throws Exception {
        // The library keeps what it read from a call's settings and keys between calls; each call must still use its
        // own: two queues whose calls alternate, one dead-lettering after 1 attempt, the other after 3.
        RedisDelayedQueue<String> once = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("once"),
                Codec.string()).maxAttempts(1).build());
        RedisDelayedQueue<String> thrice = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("thrice"),
                Codec.string()).maxAttempts(3).build());
        once.offer("a", Duration.ZERO);
        thrice.offer("b", Duration.ZERO);
        for (int attempt = 1; attempt <= 3; attempt++) {
            Delivery<String> d = thrice.poll(Duration.ofSeconds(5));
            assertThat(d.attempt()).isEqualTo(attempt);
            assertThat(d.nack(Duration.ZERO)).isTrue();
            Delivery<String> o = once.poll(Duration.ZERO);
            if (attempt == 1) {
                assertThat(o.nack(Duration.ZERO)).isTrue();
            } else {
                assertThat(o).as("dead after its one attempt").isNull();
            }
            assertThat(once.stats().dead()).isOne();
        }
        assertThat(thrice.stats().dead()).as("dead after its third attempt").isOne();
        assertThat(thrice.poll(Duration.ZERO)).isNull();
    }

    // ---- time ----

    @Test
    void aQueueExistsOnceOfferedToAndStillAfterItEmpties() throws Exception {
        String name = uniqueName("exists");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(3).build());
        assertThat(q.exists()).as("never offered to").isFalse();
        q.offer("one", Duration.ZERO);
        assertThat(q.exists()).isTrue();
        Delivery<String> d = q.poll(Duration.ofSeconds(5));
        assertThat(d).isNotNull();
        assertThat(d.ack()).isTrue();
        assertThat(q.stats().total()).isZero();
        assertThat(q.exists()).as("emptied, but not unknown").isTrue();
        RedisDelayedQueue<String> other = track(RedisDelayedQueue.builder(redis.uri(), name + "-typo",
                Codec.string()).build());
        assertThat(other.exists()).isFalse();
    }

    @Test
    void metaValuesWrittenWithoutHeadersStillPollNackDieAndTakeAReplace() throws Exception {
        String name = uniqueName("old-meta");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .maxAttempts(3).build());
        String keys = KeyLayout.prefix(name, 0);
        // Written in the layout of clients without header support: "<state> <attempts> <seq>:<payload>", one
        // with a last error recorded by a nack; neither has a header block.
        redis.call("HSET", keys + "meta", "old-1", "D 0 0000000000000001:payload: with colons #1",
                "old-2", "D 1 0000000000000002!5!oops!:second", "old-3", "D 0 0000000000000003:third");
        redis.call("ZADD", keys + "pending", "0", "0000000000000001old-1", "0", "0000000000000002old-2",
                "4503599627370496", "0000000000000003old-3"); // due in 2^52 ms: only a replace makes it due
        redis.call("SET", keys + "seq", "3");

        Delivery<String> first = q.poll(Duration.ZERO);
        assertThat(first.id()).isEqualTo("old-1");
        assertThat(first.value()).isEqualTo("payload: with colons #1");
        assertThat(first.attempt()).isOne();
        assertThat(first.headers()).isEmpty();
        Delivery<String> second = q.poll(Duration.ZERO);
        assertThat(second.value()).isEqualTo("second");
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.headers()).isEmpty();
        assertThat(second.nack(Duration.ZERO)).isTrue();
        Delivery<String> again = q.poll(Duration.ZERO);
        assertThat(again.value()).isEqualTo("second");
        assertThat(again.nack(Duration.ZERO)).isTrue(); // its third attempt: dead, of the recorded error
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.id()).isEqualTo("old-2");
        assertThat(letter.payload()).isEqualTo("second".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(letter.reason()).isEqualTo("oops!");
        assertThat(letter.headers()).isEmpty();

        assertThat(q.offer(Message.of("third, replaced").id("old-3").header("tenant", "acme")
                .onConflict(Message.Conflict.REPLACE)).outcome()).isEqualTo(Offered.Outcome.REPLACED);
        Delivery<String> third = q.poll(Duration.ZERO);
        assertThat(third.value()).isEqualTo("third, replaced");
        assertThat(third.headers()).containsExactly(Map.entry("tenant", "acme"));
        assertThat(first.ack()).isTrue();
        assertThat(third.ack()).isTrue();
    }

    @Test
    void headersAreStoredInTheMetaValueAsTheDocumentedBlock() {
        String name = uniqueName("meta-headers");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .compactAfter(PER_MESSAGE).build());
        q.offer(Message.of("p:1").id("h").delay(FAR).header("tenant", "acme").header("n", "\u00e9:2"));
        q.offer(Message.of("p:2").id("plain").delay(FAR));
        String meta = KeyLayout.prefix(name, 0) + "meta";
        // "é" is 2 UTF-8 bytes, so the value "é:2" is 4; the block "tenant=4:acmen=4:é:2" is 21 bytes.
        assertThat((String) redis.call("HGET", meta, "h")).matches("D 0 [0-9a-f]{16}#21#tenant=4:acmen=4:\u00e9:2:p:1");
        assertThat((String) redis.call("HGET", meta, "plain")).matches("D 0 [0-9a-f]{16}:p:2");
    }

    @Test
    void aDrainedPartitionKeepsItsKeysInTheirLargeEncodingsAndADeletedKeyGetsItsKeepEntryBack() throws Exception {
        String name = uniqueName("keep");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).build());
        String prefix = KeyLayout.prefix(name, 0);
        q.offer("v", Duration.ZERO);
        q.poll(Duration.ZERO).ack();
        // Drained, yet the keys stay, with keep.lua's entries, in the encodings that need no conversion on refill.
        assertThat(redis.call("OBJECT", "ENCODING", prefix + "pending")).isEqualTo("skiplist");
        assertThat(redis.call("OBJECT", "ENCODING", prefix + "inflight")).isEqualTo("skiplist");
        assertThat(redis.call("OBJECT", "ENCODING", prefix + "meta")).isEqualTo("hashtable");

        // A key deleted by hand gets its keep entry back within KEEP_EVERY (128) writes, counted by the sequence.
        redis.call("DEL", prefix + "pending");
        for (int i = 0; i < 130; i++) {
            q.offer("v", Duration.ZERO);
        }
        for (int i = 0; i < 130; i++) {
            q.poll(Duration.ZERO).ack();
        }
        assertThat(redis.call("OBJECT", "ENCODING", prefix + "pending")).isEqualTo("skiplist");
        assertThat(q.stats().total()).isZero();
    }

    @Test
    void dueTimeIsTheServersClockPlusTheDelay() {
        String name = uniqueName("clock");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .compactAfter(PER_MESSAGE).build());
        long before = clock.nowMillis();
        assertThat(q.offer("m-1", "v", Duration.ofSeconds(10))).isTrue();
        long after = ceilMillis(clock.nowMicros()); // a delay counts from the server's clock rounded up to 1 ms

        List<ScoredValue<String>> head = clock.connection().sync()
                .zrangeWithScores(KeyLayout.prefix(name, 0) + "pending", 0, 0);
        assertThat(head).hasSize(1);
        assertThat(head.get(0).getValue()).endsWith("m-1");
        // The client sends only the relative delay; the script adds it to the server's TIME.
        assertThat((long) head.get(0).getScore()).isBetween(before + 10_000, after + 10_000);
        assertThat(q.stats().nextDueIn()).hasValueSatisfying(d ->
                assertThat(d).isBetween(Duration.ofSeconds(9), Duration.ofSeconds(10)));

        // The longest delay still lands exactly: server ms + 2^52 stays below 2^53, where doubles stop being exact.
        long beforeMax = clock.nowMillis();
        assertThat(q.offer("m-max", "v", DelayedQueue.MAX_DELAY)).isTrue();
        long afterMax = ceilMillis(clock.nowMicros());
        List<ScoredValue<String>> last = clock.connection().sync() // the last message, before keep.lua's member
                .zrevrangebyscoreWithScores(KeyLayout.prefix(name, 0) + "pending", MESSAGES, Limit.from(1));
        assertThat(last.get(0).getValue()).endsWith("m-max");
        assertThat((long) last.get(0).getScore()).isBetween(beforeMax + (1L << 52), afterMax + (1L << 52));
    }

    @Test
    void nothingIsDeliveredBeforeItsDelayHasPassedAtMillisecondPrecision() throws Exception {
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("early"),
                Codec.string()).build());
        int early = 0;
        long worstEarlyNanos = 0;
        for (int i = 0; i < 300; i++) {
            long delayMs = 1 + i % 3;
            long t0 = System.nanoTime();
            q.offer("v" + i, Duration.ofMillis(delayMs));
            Delivery<String> d = q.poll(Duration.ofSeconds(5));
            long elapsed = System.nanoTime() - t0;
            assertThat(d).isNotNull();
            assertThat(d.ack()).isTrue();
            if (elapsed < TimeUnit.MILLISECONDS.toNanos(delayMs)) {
                early++;
                worstEarlyNanos = Math.max(worstEarlyNanos, TimeUnit.MILLISECONDS.toNanos(delayMs) - elapsed);
            }
        }
        // Before: due = floor(server ms) + delay, so about half came up to 1 ms early.
        assertThat(early).as("deliveries before offer + delay (worst by %d ns)", worstEarlyNanos).isZero();
    }

    // ---- group commit ----

    @Test
    void concurrentOffersEachGetTheirOwnResultAndAreCoalesced() throws Exception {
        String name = uniqueName("group");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).build());
        redis.call("CONFIG", "RESETSTAT");
        int threads = 8;
        int ids = 2_000;
        // Every id is offered by two threads at once: exactly one of them must be told it was added.
        Map<String, AtomicInteger> added = new ConcurrentHashMap<>();
        Map<String, Boolean> generated = new ConcurrentHashMap<>();
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int shift = t / 2;
            running.add(background.submit(() -> {
                for (int i = 0; i < ids / (threads / 2); i++) {
                    String id = "id-" + (shift * (ids / (threads / 2)) + i);
                    if (q.offer(id, "v:" + id, FAR)) {
                        added.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                    }
                    assertThat(generated.put(q.offer("gen", FAR), true)).isNull();
                }
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(added).hasSize(ids);
        assertThat(added.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        int offers = 2 * ids + threads * (ids / (threads / 2));
        assertThat(generated).hasSize(offers - 2 * ids);
        assertThat(q.stats().delayed()).isEqualTo(ids + generated.size());
        // 8 threads offering at once: calls that arrive while one is in flight share the next script call.
        assertThat(scriptCalls()).as("script calls for %d offers", offers).isPositive().isLessThan(offers);
    }

    @Test
    void concurrentMessagesWithMixedPoliciesShareScriptCallsAndEachGetsItsOwnOutcome() throws Exception {
        String name = uniqueName("group-policies");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).build());
        redis.call("CONFIG", "RESETSTAT");
        int threads = 8;
        int rounds = 300;
        int keys = 20;
        Map<String, AtomicInteger> added = new ConcurrentHashMap<>();
        Map<String, Boolean> generated = new ConcurrentHashMap<>();
        Map<Offered.Outcome, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            running.add(background.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    String id = "k-" + (i % keys);
                    Message.Conflict policy = Message.Conflict.values()[(thread + i) % 3];
                    Offered o = q.offer(Message.of("v" + thread + "-" + i).id(id).delay(FAR)
                            .header("from", "t" + thread).onConflict(policy));
                    outcomes.computeIfAbsent(o.outcome(), k -> new AtomicInteger()).incrementAndGet();
                    if (o.outcome() == Offered.Outcome.ADDED) {
                        added.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                    }
                    Offered g = q.offer(Message.of("gen").delay(FAR).header("from", "t" + thread));
                    assertThat(g.outcome()).isEqualTo(Offered.Outcome.ADDED);
                    assertThat(generated.put(g.id(), true)).isNull();
                }
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(added).as("each id added exactly once").hasSize(keys);
        assertThat(added.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(outcomes.keySet()).as("nothing was in flight or dead").containsOnly(Offered.Outcome.ADDED,
                Offered.Outcome.KEPT, Offered.Outcome.REPLACED, Offered.Outcome.EXTENDED);
        assertThat(q.stats().delayed()).isEqualTo(keys + threads * rounds);
        int offers = 2 * threads * rounds;
        assertThat(scriptCalls()).as("script calls for %d offers", offers).isPositive().isLessThan(offers);
        for (int k = 0; k < keys; k++) {
            assertThat(q.reschedule("k-" + k, Duration.ZERO)).isTrue();
        }
        List<Delivery<String>> due = q.poll(keys, Duration.ZERO);
        assertThat(due).hasSize(keys);
        assertThat(due).allSatisfy(d -> assertThat(d.headers()).containsOnlyKeys("from"));
    }

    @Test
    void concurrentPollersShareScriptCallsYetGetEveryMessageOnceAndInOrder() throws Exception {
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("group-poll"),
                Codec.string()).build());
        int messages = 4_000;
        for (int i = 0; i < messages; i++) {
            q.offer(String.format("m-%05d", i), Integer.toString(i), Duration.ZERO);
        }
        int consumers = 4;
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        List<Future<List<Integer>>> running = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            running.add(background.submit((Callable<List<Integer>>) () -> {
                List<Integer> mine = new ArrayList<>();
                Delivery<String> d;
                while ((d = q.poll(Duration.ofMillis(200))) != null) {
                    mine.add(Integer.parseInt(d.value()));
                    seen.merge(d.id(), 1, Integer::sum);
                    assertThat(d.attempt()).isEqualTo(1);
                    assertThat(d.ack()).isTrue();
                }
                return mine;
            }));
        }
        for (Future<List<Integer>> f : running) {
            // Batches hand messages out in due order, so each consumer sees its share in offer order.
            assertThat(f.get(60, TimeUnit.SECONDS)).isSorted();
        }
        assertThat(seen).hasSize(messages);
        assertThat(seen.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
        assertThat(q.stats().inFlight()).isZero();
    }

    // ---- wake-ups ----

    @Test
    void blockedConsumerWakesWithinMillisecondsOfAnEarlierOffer() throws Exception {
        // A one-minute re-check interval: only the wake-up signal can explain a fast delivery.
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("wake"),
                Codec.string()).recheckInterval(Duration.ofMinutes(1)).build());
        q.offer("far", FAR);
        for (int round = 0; round < 5; round++) {
            Future<Long> consumer = background.submit(() -> {
                Delivery<String> d = q.poll(Duration.ofSeconds(30));
                long at = System.nanoTime();
                assertThat(d).isNotNull();
                assertThat(d.ack()).isTrue();
                return at;
            });
            Await.until("the consumer is blocked in BLPOP", Duration.ofSeconds(10), () -> blockedClients() >= 1);
            long offered = System.nanoTime();
            q.offer("now " + round, Duration.ZERO);
            long wokeAfterMs = TimeUnit.NANOSECONDS.toMillis(consumer.get(10, TimeUnit.SECONDS) - offered);
            assertThat(wokeAfterMs).as("ms from offer to delivery").isLessThan(50);
        }
    }

    @Test
    void blockedConsumerGetsAMessageWithinMillisecondsOfItsDueTime() throws Exception {
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("due"),
                Codec.string()).recheckInterval(Duration.ofMinutes(1)).build());
        q.offer("far", FAR);
        Duration delay = Duration.ofMillis(300);
        Future<Long> consumer = background.submit(() -> {
            Delivery<String> d = q.poll(Duration.ofSeconds(30));
            long at = System.nanoTime();
            assertThat(d.value()).isEqualTo("due");
            return at;
        });
        Await.until("the consumer is blocked in BLPOP", Duration.ofSeconds(10), () -> blockedClients() >= 1);
        long offerStart = System.nanoTime();
        q.offer("due", delay);
        long offerEnd = System.nanoTime();
        long deliveredAt = consumer.get(10, TimeUnit.SECONDS);
        assertThat(deliveredAt - offerStart).as("not early").isGreaterThanOrEqualTo(delay.toNanos() - 1_000_000);
        long lateMs = TimeUnit.NANOSECONDS.toMillis(deliveredAt - offerEnd - delay.toNanos());
        assertThat(lateMs).as("ms late").isLessThan(50);
    }

    // ---- partitions ----

    @Test
    void partitionedQueueDeliversEveryMessageExactlyOnceFromEveryPartition() throws Exception {
        String name = uniqueName("parts");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(4).build());
        int total = 400;
        for (int i = 0; i < total; i++) {
            assertThat(q.offer("m-" + i, "v" + i, i % 2 == 0 ? Duration.ZERO : Duration.ofMillis(50))).isTrue();
        }
        RedisCommands<String, String> admin = clock.connection().sync();
        long sum = 0;
        for (int p = 0; p < 4; p++) {
            long n = admin.zcount(KeyLayout.prefix(name, p) + "pending", MESSAGES);
            assertThat(n).as("partition %d holds messages", p).isPositive();
            sum += n;
        }
        assertThat(sum).isEqualTo(total);

        // A second client of the same queue finds each id in the same partition.
        RedisDelayedQueue<String> other = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(4).build());
        assertThat(other.offer("m-7", "dup", Duration.ZERO)).as("deduplicated across clients").isFalse();
        assertThat(other.cancel("m-1")).isTrue();
        assertThat(other.reschedule("m-3", Duration.ZERO)).isTrue();

        Map<String, Integer> received = new ConcurrentHashMap<>();
        AtomicInteger acked = new AtomicInteger();
        Callable<Void> consumer = () -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (acked.get() < total - 1 && System.nanoTime() - deadline < 0) {
                Delivery<String> d = (received.size() % 2 == 0 ? q : other).poll(Duration.ofMillis(100));
                if (d != null) {
                    received.merge(d.id(), 1, Integer::sum);
                    assertThat(d.ack()).isTrue();
                    acked.incrementAndGet();
                }
            }
            return null;
        };
        List<Future<Void>> consumers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            consumers.add(background.submit(consumer));
        }
        for (Future<Void> c : consumers) {
            c.get(40, TimeUnit.SECONDS);
        }
        assertThat(received).hasSize(total - 1).doesNotContainKey("m-1");
        assertThat(received.values()).allMatch(n -> n == 1);
        assertThat(q.stats().total()).isZero();
    }

    // ---- connection loss ----

    @Test
    void lostServerGivesAClearErrorAndTheQueueRecoversByItself() throws Exception {
        String name = uniqueName("loss");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .commandTimeout(Duration.ofMillis(500)).build());
        q.offer("before", Duration.ZERO);

        redis.kill();
        assertThatThrownBy(() -> q.offer("during", Duration.ZERO)).isInstanceOf(RedisQueueException.class)
                .hasMessageContaining("'" + name + "'").hasMessageContaining(redis.uri())
                .hasMessageContaining("offer");
        assertThatThrownBy(() -> q.poll(Duration.ofMillis(100))).isInstanceOf(RedisQueueException.class)
                .hasMessageContaining(name);

        redis.restart(); // no AOF: the server comes back empty, and without the scripts
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String id = null;
        while (id == null) {
            try {
                id = q.offer("after", Duration.ZERO);
            } catch (RedisQueueException stillReconnecting) {
                if (System.nanoTime() - deadline > 0) {
                    throw stillReconnecting;
                }
                Thread.onSpinWait();
            }
        }
        Delivery<String> d = q.poll(Duration.ofSeconds(5));
        assertThat(d).isNotNull();
        assertThat(d.id()).isEqualTo(id);
        assertThat(d.ack()).isTrue();
    }

    @Test
    void withRetryAnOfferWaitsOutAPausedServerAndIsStoredOnce() throws Exception {
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("pause"),
                Codec.string()).commandTimeout(Duration.ofMillis(200))
                .retryOnConnectionLoss(Duration.ofSeconds(30)).build());
        q.offer("warm-up", FAR);
        redis.pause();
        Future<String> offer;
        try {
            offer = background.submit(() -> q.offer("patient", Duration.ZERO));
            assertThatThrownBy(() -> offer.get(600, TimeUnit.MILLISECONDS))
                    .as("still retrying while the server is frozen").isInstanceOf(TimeoutException.class);
        } finally {
            redis.resume();
        }
        String id = offer.get(20, TimeUnit.SECONDS);
        Delivery<String> d = q.poll(Duration.ofSeconds(5));
        assertThat(d.id()).isEqualTo(id);
        assertThat(d.ack()).isTrue();
        assertThat(q.poll(Duration.ZERO)).as("the retried offer was stored once").isNull();
        assertThat(q.stats().total()).isOne();
    }

    // ---- batches ----

    /** @return the server's script calls since its statistics were reset: {@code FCALL}s and {@code EVALSHA}s */
    private long scriptCalls() {
        String info = (String) redis.call("INFO", "commandstats");
        long total = 0;
        for (String command : List.of("fcall", "evalsha")) {
            Matcher calls = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(info);
            total += calls.find() ? Long.parseLong(calls.group(1)) : 0;
        }
        return total;
    }

    @Test
    void aBatchCostsOneScriptCallPerPartitionItTouches() throws Exception {
        int partitions = 4;
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), uniqueName("batch"),
                Codec.string()).partitions(partitions).build());
        Map<String, String> batch = new java.util.LinkedHashMap<>();
        PartitionSelector selector = new PartitionSelector(partitions);
        java.util.Set<Integer> touched = new java.util.HashSet<>();
        for (int i = 0; i < 200; i++) {
            batch.put("b-" + i, "v" + i);
            touched.add(selector.partitionOf("b-" + i));
        }
        assertThat(touched).hasSize(partitions);
        redis.call("CONFIG", "RESETSTAT");
        assertThat(q.offerAll(batch, Duration.ZERO)).containsExactlyElementsOf(batch.keySet());
        assertThat(scriptCalls()).as("offerAll: one offer.lua per partition").isEqualTo(partitions);

        redis.call("CONFIG", "RESETSTAT");
        List<Delivery<String>> got = q.poll(DelayedQueue.MAX_BATCH, Duration.ZERO);
        assertThat(scriptCalls()).as("poll(max): one poll.lua per partition").isEqualTo(partitions);
        assertThat(got).extracting(Delivery::id).containsExactlyInAnyOrderElementsOf(batch.keySet());
        // FIFO within a due time holds per partition.
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            List<String> inPartition = got.stream().map(Delivery::id)
                    .filter(id -> selector.partitionOf(id) == partition).toList();
            assertThat(inPartition).isSortedAccordingTo(java.util.Comparator.comparingInt(
                    id -> Integer.parseInt(id.substring(2))));
        }

        redis.call("CONFIG", "RESETSTAT");
        assertThat(q.ackAll(got)).hasSize(200).containsOnly(true);
        assertThat(scriptCalls()).as("ackAll: one ack.lua per partition").isEqualTo(partitions);
        assertThat(q.stats().total()).isZero();
    }

    @Test
    void aDeliveryOfAnotherClientOfTheSameQueueIsRejectedByAckAll() throws Exception {
        String name = uniqueName("foreign");
        RedisDelayedQueue<String> a = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).build());
        RedisDelayedQueue<String> b = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).build());
        a.offerAll(List.of("x"), Duration.ZERO);
        List<Delivery<String>> got = b.poll(10, Duration.ZERO);
        assertThat(got).hasSize(1);
        assertThatThrownBy(() -> a.ackAll(got)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deliveries[0]").hasMessageContaining(name);
        assertThat(b.ackAll(got)).containsExactly(true);
    }
}
