package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import io.clockwork.testing.queue.GroupContract;
import io.clockwork.worker.Job;
import io.clockwork.worker.Worker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link GroupContract} on a real {@code redis-server} ({@code include/groups.lua}), plus what the Redis layout
 * adds: a group's slot held by a consumer that died frees at its visibility timeout and never earlier, a stale ack
 * frees nothing, groups keep their placement on a partitioned queue, and {@link DelayedQueue#largestGroups}.
 */
@ExtendWith(RedisExtension.class)
class RedisGroupIT extends GroupContract {

    private final RedisServerProcess redis;
    private final ContractQueues queues;

    RedisGroupIT(RedisServerProcess redis) {
        this.redis = redis;
        this.queues = new ContractQueues(redis, "group-");
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    /** Connects the server clock's reader before a test's timed steps, so that its first step pays no connect. */
    @BeforeEach
    void connectTheClock() {
        queues.passTime(Duration.ZERO);
    }

    @Override
    protected void passTime(Duration amount) {
        queues.passTime(amount);
    }

    @Override
    protected Duration shortLease() {
        return Duration.ofMillis(400); // real time: a loaded machine may pause a call for a few hundred ms
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    @Test
    void cancellingOrDeadLetteringAGroupsDeliveryWakesAPollerWaitingForItsSlot() throws Exception {
        // A long recheck and lease: without the scripts' wake-up the waiting poll would sleep 30 s.
        RedisDelayedQueue<String> q = open("group-freed", b -> b.maxInFlightPerGroup(1)
                .visibilityTimeout(Duration.ofSeconds(30)).recheckInterval(Duration.ofSeconds(30)));
        for (String how : new String[] {"cancel", "deadLetter"}) {
            q.offer(Message.of(how + "-0").id(how + "-0").group("a"));
            q.offer(Message.of(how + "-1").id(how + "-1").group("a"));
            Delivery<String> first = q.poll(Duration.ZERO);
            assertThat(first.value()).isEqualTo(how + "-0");
            CompletableFuture<Delivery<String>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return q.poll(Duration.ofSeconds(25));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            passTime(Duration.ofMillis(300)); // the poll's take finds the group's slot held, and it sleeps
            assertThat(waiting).isNotDone();
            if (how.equals("cancel")) {
                assertThat(q.cancel(first.id())).isTrue();
            } else {
                assertThat(first.deadLetter("given up")).isTrue();
            }
            Delivery<String> next = waiting.get(10, TimeUnit.SECONDS);
            assertThat(next).as("woken by the " + how).isNotNull();
            assertThat(next.value()).isEqualTo(how + "-1");
            assertThat(next.ack()).isTrue();
        }
    }

    private RedisDelayedQueue<String> open(String name, Consumer<RedisQueueBuilder<String>> options) {
        RedisQueueBuilder<String> b = RedisDelayedQueue.builder(redis.uri(), name, Codec.string());
        options.accept(b);
        return queues.track(b.build());
    }

    private static List<String> values(List<Delivery<String>> got) {
        return got.stream().map(Delivery::value).toList();
    }

    @Test
    void aConsumerThatDiesHoldingAGroupsMessageHoldsItsSlotUntilTheVisibilityTimeoutNeverLonger() throws Exception {
        Duration visibility = Duration.ofSeconds(2);
        RedisDelayedQueue<String> dying = open("group-crash",
                b -> b.maxInFlightPerGroup(1).visibilityTimeout(visibility));
        RedisDelayedQueue<String> survivor = open("group-crash", b -> b.visibilityTimeout(visibility));
        dying.offer(Message.of("a0").group("a"));
        dying.offer(Message.of("a1").group("a"));
        long start = System.nanoTime();
        assertThat(dying.poll(Duration.ZERO).value()).isEqualTo("a0");
        dying.close(); // dies without an ack
        assertThat(survivor.poll(Duration.ZERO)).as("the slot is held").isNull();
        Delivery<String> next = survivor.poll(Duration.ofSeconds(10));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(next.value()).as("a1 was due before a0 came back").isEqualTo("a1");
        assertThat(elapsedMs).as("not before the visibility timeout").isGreaterThanOrEqualTo(visibility.toMillis());
        assertThat(elapsedMs).as("soon after it").isLessThan(visibility.toMillis() + 3_000);
        assertThat(survivor.poll(Duration.ZERO)).as("a1 holds the slot now").isNull();
        assertThat(next.ack()).isTrue();
        Delivery<String> again = survivor.poll(Duration.ofSeconds(5));
        assertThat(again.value()).isEqualTo("a0");
        assertThat(again.attempt()).isEqualTo(2);
    }

    @Test
    void aStaleAckAfterTheRedeliveryFreesNoSlotTwice() throws Exception {
        RedisDelayedQueue<String> q = open("group-stale",
                b -> b.maxInFlightPerGroup(1).visibilityTimeout(Duration.ofMillis(200)));
        for (int i = 0; i < 3; i++) {
            q.offer(Message.of("a" + i).group("a"));
        }
        Delivery<String> stale = q.poll(Duration.ZERO);
        assertThat(stale.value()).isEqualTo("a0");
        passTime(Duration.ofMillis(250));
        Delivery<String> a1 = q.poll(Duration.ZERO);
        assertThat(a1.value()).as("the timeout freed a0's slot").isEqualTo("a1");
        assertThat(stale.ack()).as("a0's first delivery lost its hold").isFalse();
        assertThat(stale.nack(Duration.ZERO)).isFalse();
        assertThat(stale.deadLetter("late")).isFalse();
        assertThat(q.poll(Duration.ZERO)).as("a1 still holds the group's one slot").isNull();
        assertThat(redis.call("HGET", KeyLayout.prefix("group-stale", 0) + "gflight", "a")).isEqualTo("1");
        assertThat(a1.ack()).isTrue();
        Delivery<String> next = q.poll(Duration.ZERO);
        assertThat(next.value()).as("due before a0 came back").isEqualTo("a2");
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(next.ack()).isTrue();
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a0");
    }

    @Test
    void cancellingAGroupsMessageInFlightFreesItsSlotAndAQueuedOneLeavesItsGroup() throws Exception {
        RedisDelayedQueue<String> q = open("group-cancel", b -> b.maxInFlightPerGroup(1));
        for (int i = 0; i < 3; i++) {
            q.offer(Message.of("a" + i).id("a" + i).group("a"));
        }
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a0");
        assertThat(q.cancel("a1")).as("waiting in its group").isTrue();
        assertThat(q.stats().ready()).isEqualTo(1);
        assertThat(q.cancel("a0")).as("in flight").isTrue();
        assertThat(values(q.poll(10, Duration.ZERO))).containsExactly("a2");
        assertThat(q.stats().total()).isEqualTo(1);
    }

    @Test
    void prioritiesComeFirstForGroupedAndUngroupedMessagesFromAnyClient() throws Exception {
        RedisDelayedQueue<String> grouped = open("group-prio", b -> b.maxInFlightPerGroup(5));
        RedisDelayedQueue<String> plain = open("group-prio", b -> { });
        plain.offer("old", Duration.ZERO); // before the partition is grouped: it joins the unnamed group
        grouped.offer(Message.of("a-low").group("a").priority(-1));
        grouped.offer(Message.of("a0").group("a"));
        grouped.offer(Message.of("b0").group("b"));
        plain.offer(Message.of("u-urgent").priority(7)); // a client that never grouped: straight into READY
        grouped.offer(Message.of("b-high").group("b").priority(3));
        grouped.offer(Message.of("a-later").group("a").delay(Duration.ofMillis(100)));
        List<String> first = values(grouped.poll(3, Duration.ZERO));
        assertThat(first.subList(0, 2)).containsExactly("u-urgent", "b-high");
        assertThat(first.get(2)).isIn("old", "a0", "b0");
        passTime(Duration.ofMillis(120));
        List<String> rest = values(grouped.poll(10, Duration.ZERO));
        List<String> all = new ArrayList<>(first);
        all.addAll(rest);
        assertThat(all).containsExactlyInAnyOrder("u-urgent", "b-high", "old", "a0", "b0", "a-later", "a-low");
        assertThat(all.get(all.size() - 1)).isEqualTo("a-low");
        assertThat(all.indexOf("a0")).as("due order within a group").isLessThan(all.indexOf("a-later"));
    }

    @Test
    void aGroupsMessagesLiveInItsPartitionAndAForeignIdIsRefused() throws Exception {
        RedisDelayedQueue<String> q = open("group-placed", b -> b.partitions(4).maxInFlightPerGroup(1));
        Groups placement = new Groups(null, new PartitionSelector(4), 4);
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            batch.add(Message.of("t" + i).group("tenant-" + (i % 4)));
        }
        List<String> ids = q.offerAll(batch).stream().map(o -> o.id()).toList();
        for (int i = 0; i < 8; i++) {
            assertThat(q.routing().of(ids.get(i))).as("message %d", i)
                    .isEqualTo(placement.partitionOf("tenant-" + (i % 4)));
        }
        String single = q.offer(Message.of("s").group("tenant-0")).id();
        assertThat(q.routing().of(single)).isEqualTo(placement.partitionOf("tenant-0"));
        String foreign = "x";
        while (q.routing().of(foreign) == placement.partitionOf("tenant-0")) {
            foreign += "x";
        }
        String id = foreign;
        assertThatThrownBy(() -> q.offer(Message.of("y").id(id).group("tenant-0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must map to the group's partition");
        List<Delivery<String>> got = q.poll(20, Duration.ZERO);
        assertThat(values(got)).as("one per group at a time").hasSize(4);
        assertThat(q.cancel(single)).as("found by its id").isTrue();
        assertThat(q.ackAll(got)).containsOnly(true);
        assertThat(q.poll(20, Duration.ZERO)).hasSize(4);
    }

    @Test
    void largestGroupsListsReadyThenInFlightCountsMergedOverPartitions() throws Exception {
        RedisDelayedQueue<String> q = open("group-largest", b -> b.partitions(3).maxInFlightPerGroup(1));
        assertThat(q.largestGroups(10)).isEmpty();
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(Message.of("big").group("big"));
        }
        for (int i = 0; i < 3; i++) {
            batch.add(Message.of("mid").group("mid"));
        }
        batch.add(Message.of("solo").group("solo"));
        batch.add(Message.of("plain"));
        q.offerAll(batch);
        assertThat(q.largestGroups(10)).containsExactly(new GroupBacklog("big", 5, 0), new GroupBacklog("mid", 3, 0),
                new GroupBacklog("solo", 1, 0));
        List<Delivery<String>> got = q.poll(10, Duration.ZERO);
        assertThat(values(got)).containsExactlyInAnyOrder("big", "mid", "solo", "plain");
        assertThat(q.largestGroups(2)).containsExactly(new GroupBacklog("big", 4, 1), new GroupBacklog("mid", 2, 1));
        assertThat(q.largestGroups(10)).last().isEqualTo(new GroupBacklog("solo", 0, 1));
        assertThat(q.ackAll(got)).containsOnly(true);
        assertThat(q.largestGroups(10)).containsExactly(new GroupBacklog("big", 4, 0), new GroupBacklog("mid", 2, 0));
        assertThatThrownBy(() -> q.largestGroups(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theGroupOptionsOfTheLastClientBuiltWithThemHoldForEveryClient() throws Exception {
        RedisDelayedQueue<String> first = open("group-options", b -> b.maxInFlightPerGroup(1).groupWeight("vip", 2));
        RedisDelayedQueue<String> plain = open("group-options", b -> { });
        for (int i = 0; i < 3; i++) {
            plain.offer(Message.of("a" + i).group("a"));
        }
        assertThat(values(plain.poll(10, Duration.ZERO))).as("first's limit").containsExactly("a0");
        open("group-options", b -> b.maxInFlightPerGroup(3));
        String conf = KeyLayout.prefix("group-options", 0) + "gconf";
        assertThat(redis.call("HGET", conf, "max")).isEqualTo("3");
        assertThat(redis.call("HEXISTS", conf, "w:vip")).isEqualTo(0L);
        plain.offer(Message.of("b0").group("b"));
        assertThat(values(first.poll(10, Duration.ZERO))).as("the last one's limit")
                .containsExactlyInAnyOrder("a1", "a2", "b0");
    }

    @Test
    void aServerWithoutFunctionsKeepsTheGroupsByScripts() throws Exception {
        RedisServerProcess old = RedisServerProcess.builder().config("rename-command FUNCTION", "")
                .config("rename-command FCALL", "").start();
        try {
            RedisDelayedQueue<String> q = queues.track(RedisDelayedQueue.builder(old.uri(), "group-scripts",
                    Codec.string()).maxInFlightPerGroup(1).groupRateLimit(2, Duration.ofHours(1)).build());
            assertThat(q.runsFunctions()).isFalse();
            for (int i = 0; i < 3; i++) {
                q.offer(Message.of("a" + i).group("a"));
                q.offer(Message.of("b" + i).group("b"));
            }
            List<Delivery<String>> got = q.poll(10, Duration.ZERO);
            assertThat(values(got)).containsExactlyInAnyOrder("a0", "b0");
            assertThat(q.ackAll(got)).containsOnly(true);
            got = q.poll(10, Duration.ZERO);
            assertThat(values(got)).containsExactlyInAnyOrder("a1", "b1");
            assertThat(q.ackAll(got)).containsOnly(true);
            assertThat(q.poll(10, Duration.ZERO)).as("each group used its 2 permits").isEmpty();
            assertThat(q.counters().orElseThrow().rateLimited()).isEqualTo(1);
        } finally {
            queues.close();
            old.close();
        }
    }

    @Test
    void aMessageWaitingInItsGroupCanBeRescheduledReplacedCountedBrowsedAndFound() throws Exception {
        RedisDelayedQueue<String> q = open("group-ready", b -> b.maxInFlightPerGroup(1));
        q.offer(Message.of("taken").group("a"));
        String rescheduled = q.offer(Message.of("rescheduled").group("a")).id();
        q.offer(Message.of("replaced").id("r1").group("a"));
        q.offer(Message.of("kept").group("b").priority(2));
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("kept");
        Delivery<String> taken = q.poll(Duration.ZERO);
        assertThat(taken.value()).isEqualTo("taken");
        assertThat(q.stats().ready()).isEqualTo(2);
        RedisQueueBrowser browser = RedisQueueBrowser.of(q);
        RedisQueueBrowser.Page page = browser.page(RedisQueueBrowser.State.READY, Optional.empty(), 10);
        assertThat(page.total()).isEqualTo(2);
        assertThat(page.entries()).extracting(RedisQueueBrowser.Entry::id).containsExactly(rescheduled, "r1");
        assertThat(page.entries()).allSatisfy(e -> assertThat(e.at()).isBeforeOrEqualTo(page.now()));
        assertThat(browser.find("r1")).hasValueSatisfying(e ->
                assertThat(e.state()).isEqualTo(RedisQueueBrowser.State.READY));
        assertThat(browser.head().oldestReady()).isPresent();
        assertThat(q.reschedule(rescheduled, Duration.ofHours(1))).isTrue();
        assertThat(q.offer(Message.of("replacement").id("r1").group("a").onConflict(Message.Conflict.REPLACE))
                .outcome()).isEqualTo(Offered.Outcome.REPLACED);
        assertThat(q.stats().ready()).isEqualTo(1);
        assertThat(q.stats().delayed()).isEqualTo(1);
        assertThat(taken.deadLetter("bad")).isTrue();
        assertThat(values(q.poll(10, Duration.ZERO))).as("its slot freed").containsExactly("replacement");
        q.pause();
        assertThat(q.requeueDead(taken.id())).isTrue();
        assertThat(q.poll(10, Duration.ZERO)).as("paused").isEmpty();
        q.resume();
        assertThat(q.poll(10, Duration.ZERO)).as("a's slot is held by the replacement").isEmpty();
        assertThat(q.largestGroups(5)).containsExactly(new GroupBacklog("a", 1, 1), new GroupBacklog("b", 0, 1));
    }

    @Test
    void aWorkerWithPrefetchNeverHoldsTwoMessagesOfAGroupAndHandlesEveryOne() throws Exception {
        RedisDelayedQueue<String> q = open("group-worker", b -> b.maxInFlightPerGroup(1));
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            for (int g = 0; g < 10; g++) {
                batch.add(Message.of("g" + g + ":" + i).group("g" + g));
            }
        }
        q.offerAll(batch);
        Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        Set<String> handled = ConcurrentHashMap.newKeySet();
        AtomicInteger overlaps = new AtomicInteger();
        try (Worker<String> worker = Worker.builder(q, (Job<String> job) -> {
            AtomicInteger n = running.computeIfAbsent(job.value().split(":")[0], k -> new AtomicInteger());
            if (n.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            handled.add(job.value());
            n.decrementAndGet();
        }).concurrency(4).prefetch(8).pollWait(Duration.ofMillis(100)).build()) {
            Await.until("every message handled", Duration.ofSeconds(30),
                    () -> handled.size() == 100 && q.stats().total() == 0);
        }
        assertThat(overlaps.get()).as("two messages of one group handled at once").isZero();
    }

    @Test
    void pollersFindTheNextPriorityAtOnceWhenManyGroupsDrainALevel() throws Exception {
        RedisDelayedQueue<String> q = open("group-drain", b -> { });
        int n = 800;
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(Message.of("m" + i).priority(i % 4).group("tenant-" + (i % 100)));
        }
        q.offerAll(batch);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger empty = new AtomicInteger();
        List<Thread> pollers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread th = new Thread(() -> {
                try {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        if (q.poll(Duration.ZERO) == null) {
                            empty.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            th.start();
            pollers.add(th);
        }
        for (Thread th : pollers) {
            th.join();
        }
        assertThat(empty.get()).as("polls that found nothing while messages were ready").isZero();
        assertThat(q.stats().ready()).isZero();
    }

    @Test
    void aPollOfManyTakesWhatPollsOfOneWouldInTheSameOrder() throws Exception {
        // A poll of n reads the turns of n groups at once and writes them back at once: the order must be that of n
        // polls of one, through weights, priorities, a group whose next message is at another level, a group whose
        // messages were all cancelled and messages without a group.
        List<List<String>> orders = new ArrayList<>();
        for (int size : new int[] {1, 2, 3, 7, 50}) {
            RedisDelayedQueue<String> q = open("group-batch-" + size, b -> b.groupWeight("w", 2));
            List<String> cancelled = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                for (String g : List.of("g0", "g1", "g2", "g3", "w")) {
                    String id = q.offer(Message.of(g + "-" + i).group(g)).id();
                    if (g.equals("g2")) {
                        cancelled.add(id);
                    }
                }
                q.offer(Message.of("hi-" + i).group("hi").priority(i < 2 ? 1 : 0));
                if (i < 4) {
                    q.offer(Message.of("lo-" + i).group("lo").priority(-1));
                }
                q.offer(Message.of("u-" + i).priority(i % 3 == 0 ? 2 : 0));
            }
            for (String id : cancelled) {
                assertThat(q.cancel(id)).isTrue();
            }
            List<String> order = new ArrayList<>();
            for (List<Delivery<String>> got = q.poll(size, Duration.ZERO); !got.isEmpty();
                 got = q.poll(size, Duration.ZERO)) {
                assertThat(got.size()).as("a poll of %d", size).isLessThanOrEqualTo(size);
                order.addAll(values(got));
            }
            assertThat(order).as("a poll of %d", size).hasSize(6 * 6 + 4);
            orders.add(order);
        }
        assertThat(orders.get(0).subList(0, 4)).as("priority first").containsExactly("u-0", "u-3", "hi-0", "hi-1");
        for (int i = 1; i < orders.size(); i++) {
            assertThat(orders.get(i)).isEqualTo(orders.get(0));
        }
    }

    @Test
    void turnsKeepTheirOrderWhenTheTicketCounterIsLostOrNearsItsSpan() throws Exception {
        // The round robin's tickets come from the partition's gturn: a lost counter (or a partition whose RING
        // was written without one) and a counter near the span of a level's scores both renumber RING in its order.
        List<List<String>> orders = new ArrayList<>();
        for (String change : List.of("none", "lost", "near the span")) {
            String name = "group-turns-" + orders.size();
            RedisDelayedQueue<String> q = open(name, b -> { });
            for (int i = 0; i < 3; i++) {
                for (String g : List.of("a", "b", "c", "d")) {
                    q.offer(Message.of(g + i).group(g).priority(g.equals("d") ? 1 : 0));
                }
            }
            List<String> order = new ArrayList<>(values(q.poll(3, Duration.ZERO)));
            String turn = KeyLayout.prefix(name, 0) + "gturn";
            if (change.equals("lost")) {
                redis.call("DEL", turn);
            } else if (change.equals("near the span")) {
                redis.call("SET", turn, String.valueOf((1L << 32) - 3));
            }
            for (Delivery<String> d = q.poll(Duration.ZERO); d != null; d = q.poll(Duration.ZERO)) {
                order.add(d.value());
            }
            assertThat(order).as(change).hasSize(12);
            orders.add(order);
        }
        assertThat(orders.get(0)).containsExactly("d0", "d1", "d2", "a0", "b0", "c0", "a1", "b1", "c1", "a2", "b2",
                "c2");
        assertThat(orders.get(1)).isEqualTo(orders.get(0));
        assertThat(orders.get(2)).isEqualTo(orders.get(0));
        assertThat(Long.parseLong((String) redis.call("GET", KeyLayout.prefix("group-turns-2", 0) + "gturn")))
                .as("renumbered from 0").isLessThan(100);
    }

    @Test
    void aPartitionMarkedBeforeTheSettingsCopyReadsThemFromGconf() throws Exception {
        // GROUPED's value carries a copy of max, rate and weighted; a partition marked "1" (without the copy) is
        // served by the settings stored in gconf.
        RedisDelayedQueue<String> q = open("group-marked", b -> { });
        q.offer(Message.of("first").group("a"));
        String prefix = KeyLayout.prefix("group-marked", 0);
        assertThat(redis.call("GET", prefix + "grouped")).as("marked without settings").isEqualTo("2");
        redis.call("SET", prefix + "grouped", "1");
        redis.call("HSET", prefix + "gconf", "max", "1");
        for (int i = 0; i < 3; i++) {
            q.offer(Message.of("a" + i).group("a"));
            q.offer(Message.of("b" + i).group("b"));
        }
        List<Delivery<String>> got = q.poll(10, Duration.ZERO);
        assertThat(values(got)).as("one per group: gconf's max").containsExactlyInAnyOrder("first", "b0");
        assertThat(got.get(0).ack()).isTrue();
        assertThat(values(q.poll(10, Duration.ZERO))).as("a's slot freed by the ack").containsExactly("a0");
    }

    @Test
    void aPollOfManyKeepsThePriorityOrderWhenItReservesTicketsMidway() throws Exception {
        // Five groups whose entry in the ring is at priority 0 but whose first ready message is at -1 (their priority-0
        // message was cancelled) each take a ticket and take nothing, so a poll of 4 runs out of its reserved tickets
        // in its second read of the ring, after u's turn ended at priority 0 and before f's at -1: u comes first.
        RedisDelayedQueue<String> q = open("group-reserve", b -> { });
        q.offer(Message.of("f0").group("f").priority(-1));
        List<String> cancelled = new ArrayList<>();
        for (String g : List.of("a", "b", "c", "e")) {
            cancelled.add(q.offer(Message.of(g + "-gone").group(g)).id());
            q.offer(Message.of(g + "-low").group(g).priority(-1));
        }
        for (int i = 0; i < 5; i++) {
            q.offer(Message.of("u" + i).group("u"));
        }
        cancelled.add(q.offer(Message.of("d-gone").group("d")).id());
        q.offer(Message.of("d-low").group("d").priority(-1));
        for (String id : cancelled) {
            assertThat(q.cancel(id)).isTrue();
        }
        assertThat(values(q.poll(4, Duration.ZERO))).containsExactly("u0", "u1", "u2", "u3");
    }
}
