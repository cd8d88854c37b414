package io.clockwork.testing.queue;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.Message;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How a {@link DelayedQueue} shares deliveries fairly between groups of messages (after priority, {@link
 * PriorityContract}) and how it limits each group's messages in flight, written once for every backend that supports
 * them. A backend's test
 * extends this class as it extends {@link DelayedQueueContract}.
 *
 * <p>The tests never sleep: where time must pass they call {@link #passTime}; a consumer that must block polls from a
 * background thread, and the test waits for it with a real-time limit.
 */
public abstract class GroupContract extends QueueContractBase {

    /** A delay that never passes during a test. */
    private static final Duration FAR = Duration.ofHours(1);
    /** How long a test waits, in real time, for a background poll before it fails. */
    private static final long REAL_TIME_LIMIT_SECONDS = 20;

    /**
     * @return how many due messages the one large group of {@link #aLargeGroupDelaysNoSmallGroupByMoreThanARound}
     *         holds; a backend whose offers are slow may lower it
     */
    protected int largeGroupSize() {
        return 100_000;
    }

    /**
     * @return the visibility timeout of the tests whose leases expire while they run; a backend whose time is real
     *         lengthens it so that a loaded machine's pauses between two calls stay well within it
     */
    protected Duration shortLease() {
        return Duration.ofMillis(50);
    }

    private DelayedQueue<String> queue() {
        return newQueue(Codec.string(), options -> { });
    }

    private DelayedQueue<String> queue(Consumer<DelayedQueueBuilder<String, ?>> options) {
        return newQueue(Codec.string(), options);
    }

    // ---- fair groups ----

    @Test
    void dueMessagesGoRoundRobinBetweenGroupsTheUngroupedTakingTheirTurn() throws Exception {
        DelayedQueue<String> q = queue();
        for (int i = 0; i < 3; i++) {
            q.offer(Message.of("a" + i).group("tenant-a"));
        }
        for (int i = 0; i < 3; i++) {
            q.offer(Message.of("b" + i).group("tenant-b"));
        }
        for (int i = 0; i < 3; i++) {
            q.offer(Message.of("u" + i));
        }
        List<String> order = drainValues(q);
        assertThat(order).hasSize(9);
        for (int round = 0; round < 3; round++) {
            assertThat(order.subList(round * 3, round * 3 + 3)).as("round %d", round)
                    .containsExactlyInAnyOrder("a" + round, "b" + round, "u" + round);
        }
    }

    @Test
    void aGroupOfWeightWGetsWTurnsPerRound() throws Exception {
        DelayedQueue<String> q = queue(b -> b.groupWeight("big", 3));
        for (int i = 0; i < 9; i++) {
            q.offer(Message.of("big-" + i).group("big"));
        }
        for (int i = 0; i < 3; i++) {
            q.offer(Message.of("small-" + i).group("small"));
        }
        List<String> order = drainValues(q);
        assertThat(order).hasSize(12);
        for (int round = 0; round < 3; round++) {
            List<String> r = order.subList(round * 4, round * 4 + 4);
            assertThat(r.stream().filter(v -> v.startsWith("big")).count()).as("round %d: %s", round, r)
                    .isEqualTo(3);
            assertThat(r).as("within a group, due order").contains("small-" + round);
        }
        assertThat(order.stream().filter(v -> v.startsWith("big"))).as("within a group, due order")
                .isSorted();
    }

    @Test
    void aLargeGroupDelaysNoSmallGroupByMoreThanARound() throws Exception {
        DelayedQueue<String> q = queue();
        int large = largeGroupSize();
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < large; i++) {
            batch.add(Message.of("big").group("big"));
            if (batch.size() == DelayedQueue.MAX_BATCH) {
                q.offerAll(batch);
                batch.clear();
            }
        }
        for (int g = 0; g < 100; g++) {
            for (int i = 0; i < 10; i++) {
                batch.add(Message.of("small").group("small-" + g));
                if (batch.size() == DelayedQueue.MAX_BATCH) {
                    q.offerAll(batch);
                    batch.clear();
                }
            }
        }
        q.offerAll(batch);
        int bigDelivered = 0;
        int smallDelivered = 0;
        while (smallDelivered < 1000) {
            List<Delivery<String>> got = q.poll(DelayedQueue.MAX_BATCH, Duration.ZERO);
            assertThat(got).isNotEmpty();
            for (Delivery<String> d : got) {
                if (d.value().equals("big")) {
                    bigDelivered++;
                } else {
                    smallDelivered++;
                }
            }
        }
        assertThat(bigDelivered).as("big-group deliveries before every small group's 10 were delivered")
                .isLessThanOrEqualTo(10 + DelayedQueue.MAX_BATCH);
    }

    @Test
    void priorityComesBeforeTheRoundRobin() throws Exception {
        DelayedQueue<String> q = queue();
        for (int i = 0; i < 5; i++) {
            q.offer(Message.of("a" + i).group("a"));
        }
        q.offer(Message.of("b-urgent").group("b").priority(1));
        q.offer(Message.of("b-plain").group("b"));
        List<String> order = drainValues(q);
        assertThat(order.get(0)).isEqualTo("b-urgent");
        assertThat(order.subList(1, 3)).containsExactlyInAnyOrder("a0", "b-plain");
    }

    @Test
    void theGroupTravelsAsAHeader() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(Message.of("x").group("tenant-ü").header("trace", "t"));
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d.headers()).containsEntry(Message.GROUP_HEADER, "tenant-ü").containsEntry("trace", "t");
    }

    // ---- maxInFlightPerGroup ----

    @Test
    void aGroupAtItsInFlightLimitDeliversNothingMoreUntilOneSettles() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxInFlightPerGroup(1));
        q.offer(Message.of("a0").group("a"));
        q.offer(Message.of("a1").group("a"));
        q.offer(Message.of("a2").group("a"));
        q.offer(Message.of("b0").group("b"));
        List<Delivery<String>> first = q.poll(10, Duration.ZERO);
        assertThat(valuesOf(first)).containsExactlyInAnyOrder("a0", "b0");
        assertThat(q.poll(10, Duration.ZERO)).isEmpty();
        assertThat(q.stats().ready()).isEqualTo(2);
        Delivery<String> a0 = first.stream().filter(d -> d.value().equals("a0")).findFirst().orElseThrow();
        assertThat(a0.ack()).isTrue();
        assertThat(valuesOf(q.poll(10, Duration.ZERO))).as("one at a time, in due order").containsExactly("a1");
    }

    @Test
    void ungroupedMessagesAreNotLimitedPerGroup() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxInFlightPerGroup(1));
        for (int i = 0; i < 4; i++) {
            q.offer(Message.of("u" + i));
        }
        assertThat(q.poll(10, Duration.ZERO)).hasSize(4);
    }

    @Test
    void aNackReleaseDeadLetterOrCancelFreesTheGroupsSlot() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxInFlightPerGroup(1));
        for (int i = 0; i < 5; i++) {
            q.offer(Message.of("a" + i).id("a" + i).group("a"));
        }
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d.value()).isEqualTo("a0");
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(d.nack(FAR)).isTrue();
        d = q.poll(Duration.ZERO);
        assertThat(d.value()).as("after a nack").isEqualTo("a1");
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(d.release()).isTrue();
        d = q.poll(Duration.ZERO);
        assertThat(d.value()).as("after a release (the released message goes behind the due ones)")
                .isEqualTo("a2");
        assertThat(d.deadLetter("bad")).isTrue();
        d = q.poll(Duration.ZERO);
        assertThat(d.value()).as("after a dead letter").isEqualTo("a3");
        assertThat(q.cancel("a3")).isTrue();
        d = q.poll(Duration.ZERO);
        assertThat(d.value()).as("after a cancel of the one in flight").isEqualTo("a4");
        assertThat(q.poll(Duration.ZERO)).isNull();
    }

    @Test
    void anExpiredDeliveryFreesItsGroupsSlotAtItsVisibilityTimeoutNeverEarlier() throws Exception {
        Duration lease = shortLease().multipliedBy(2);
        DelayedQueue<String> q = queue(b -> b.maxInFlightPerGroup(1).visibilityTimeout(lease));
        q.offer(Message.of("a0").group("a"));
        q.offer(Message.of("a1").group("a"));
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a0"); // its consumer dies here
        passTime(lease.multipliedBy(6).dividedBy(10));
        assertThat(q.poll(Duration.ZERO)).as("the slot is held until the timeout").isNull();
        passTime(lease.multipliedBy(6).dividedBy(10));
        List<Delivery<String>> after = q.poll(10, Duration.ZERO);
        assertThat(after).as("the timeout freed one slot").hasSize(1);
        assertThat(after.get(0).value()).as("a1 was due before a0 came back").isEqualTo("a1");
        assertThat(after.get(0).ack()).isTrue();
        Delivery<String> retried = q.poll(Duration.ZERO);
        assertThat(retried.value()).isEqualTo("a0");
        assertThat(retried.attempt()).isEqualTo(2);
    }

    @Test
    void aLeaseExtendedAfterItsTimeoutFailsOnceTheGroupsSlotIsTaken() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxInFlightPerGroup(1).visibilityTimeout(shortLease()));
        q.offer(Message.of("a0").group("a"));
        q.offer(Message.of("a1").group("a"));
        Delivery<String> stale = q.poll(Duration.ZERO);
        assertThat(stale.value()).isEqualTo("a0");
        passTime(shortLease().multipliedBy(12).dividedBy(10));
        Delivery<String> a1 = q.poll(Duration.ZERO);
        assertThat(a1.value()).isEqualTo("a1");
        assertThat(stale.extend(Duration.ofSeconds(1))).as("a1 holds the group's one slot").isFalse();
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(a1.ack()).isTrue();
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a0");
    }

    @Test
    void aPollWaitingOnAFullGroupWakesWhenItsSlotFrees() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxInFlightPerGroup(1));
        q.offer(Message.of("a0").group("a"));
        q.offer(Message.of("a1").group("a"));
        Delivery<String> a0 = q.poll(Duration.ZERO);
        Future<Delivery<String>> poll = background.submit(() -> q.poll(Duration.ofSeconds(REAL_TIME_LIMIT_SECONDS)));
        passTime(Duration.ofMillis(20));
        assertThat(poll.isDone()).isFalse();
        assertThat(a0.ack()).isTrue();
        assertThat(poll.get(REAL_TIME_LIMIT_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("a1");
    }

    @Test
    void manyGroupsOneAtATimeDeliverEveryMessageInDueOrderPerGroup() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxInFlightPerGroup(1));
        int groups = 50;
        int perGroup = 6;
        for (int i = 0; i < perGroup; i++) {
            for (int g = 0; g < groups; g++) {
                q.offer(Message.of(g + ":" + i).group("g" + g));
            }
        }
        Map<String, Integer> next = new HashMap<>();
        int delivered = 0;
        while (delivered < groups * perGroup) {
            List<Delivery<String>> got = q.poll(DelayedQueue.MAX_BATCH, Duration.ZERO);
            assertThat(got).isNotEmpty();
            Set<String> inFlight = new HashSet<>();
            for (Delivery<String> d : got) {
                String[] parts = d.value().split(":");
                assertThat(inFlight.add(parts[0])).as("two of group %s in flight", parts[0]).isTrue();
                assertThat(Integer.parseInt(parts[1])).isEqualTo(next.getOrDefault(parts[0], 0));
                next.put(parts[0], Integer.parseInt(parts[1]) + 1);
            }
            for (Delivery<String> d : got) {
                assertThat(d.ack()).isTrue();
            }
            delivered += got.size();
        }
        assertThat(q.stats().ready()).isZero();
    }

    // ---- the backlog per group ----

    @Test
    void largestGroupsListsTheGroupsWithTheMostReadyMessagesFirst() throws Exception {
        DelayedQueue<String> q = queue();
        assertThat(q.largestGroups(10)).isEmpty();
        offerTo(q, "big", 5);
        offerTo(q, "mid", 3);
        offerTo(q, "small", 1);
        q.offer(Message.of("ungrouped"));
        q.offer(Message.of("later").group("delayed-only").delay(FAR));
        assertThat(q.largestGroups(DelayedQueue.MAX_GROUPS_LISTED)).containsExactly(
                new GroupBacklog("big", 5, 0), new GroupBacklog("mid", 3, 0), new GroupBacklog("small", 1, 0));
        assertThat(q.largestGroups(2)).containsExactly(new GroupBacklog("big", 5, 0), new GroupBacklog("mid", 3, 0));
    }

    @Test
    void largestGroupsCountsMessagesInFlightAndForgetsSettledGroups() throws Exception {
        DelayedQueue<String> q = queue();
        offerTo(q, "only", 2);
        Delivery<String> first = q.poll(Duration.ZERO);
        assertThat(q.largestGroups(10)).containsExactly(new GroupBacklog("only", 1, 1));
        Delivery<String> second = q.poll(Duration.ZERO);
        assertThat(q.largestGroups(10)).containsExactly(new GroupBacklog("only", 0, 2));
        assertThat(first.ack()).isTrue();
        assertThat(second.ack()).isTrue();
        assertThat(q.largestGroups(10)).isEmpty();
    }

    @Test
    void largestGroupsRefusesALimitOutOfRange() {
        DelayedQueue<String> q = queue();
        assertThatThrownBy(() -> q.largestGroups(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit").hasMessageContaining(String.valueOf(DelayedQueue.MAX_GROUPS_LISTED));
        assertThatThrownBy(() -> q.largestGroups(DelayedQueue.MAX_GROUPS_LISTED + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
    }

    private static void offerTo(DelayedQueue<String> q, String group, int count) {
        for (int i = 0; i < count; i++) {
            q.offer(Message.of(group + i).group(group));
        }
    }
}
