package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.queue.PriorityContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link PriorityContract} on a real {@code redis-server} ({@code include/ready.lua}), plus what the Redis layout
 * adds: a scheduled message waiting in the priority order can still be cancelled, rescheduled, replaced, counted and
 * browsed; messages queued before the first priority join the order; a due backlog larger than one poll moves is
 * overtaken within a few polls; a queue whose messages never carry a priority keeps the plain layout (groups with
 * priorities: {@link RedisGroupIT}).
 */
@ExtendWith(RedisExtension.class)
class RedisPriorityIT extends PriorityContract {

    private static final Duration FAR = Duration.ofHours(1);

    private final RedisServerProcess redis;
    private final ContractQueues queues;

    RedisPriorityIT(RedisServerProcess redis) {
        this.redis = redis;
        this.queues = new ContractQueues(redis, "prio-");
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    @Override
    protected void passTime(Duration amount) {
        queues.passTime(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    private RedisDelayedQueue<String> open(String name) {
        return queues.track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).build());
    }

    private static Message<String> at(String value, int priority) {
        return Message.of(value).priority(priority);
    }

    @Test
    void messagesQueuedBeforeTheFirstPriorityJoinTheOrderAtPriorityZero() throws Exception {
        RedisDelayedQueue<String> q = open("prio-late");
        q.offer("old1", Duration.ZERO);
        q.offer("old2", Duration.ZERO);
        assertThat(redis.call("EXISTS", KeyLayout.prefix("prio-late", 0) + "ordered")).isEqualTo(0L);
        q.offer(at("urgent", 10));
        q.offer(at("background", -10));
        assertThat(valuesOf(q.poll(10, Duration.ZERO))).containsExactly("urgent", "old1", "old2", "background");
    }

    @Test
    void aDelayedMessageWithAPriorityOfferedToAnEmptyPartitionWaitsForItsDueTime() throws Exception {
        RedisDelayedQueue<String> q = open("prio-early");
        q.offer(at("later", 5).delay(Duration.ofSeconds(5))); // sooner than compactAfter: not in the compact store
        assertThat(q.poll(Duration.ZERO)).as("not due").isNull();
        assertThat(q.stats().delayed()).isEqualTo(1);
    }

    @Test
    void aMessageWaitingInThePriorityOrderCanBeCancelledRescheduledReplacedCountedAndBrowsed() throws Exception {
        RedisDelayedQueue<String> q = open("prio-ready");
        q.offer(at("taken", 9));
        Offered cancelled = q.offer(at("cancelled", 1));
        Offered rescheduled = q.offer(at("rescheduled", 1));
        q.offer(at("replaced", 1).id("r1"));
        q.offer(at("kept", 1));
        // the poll moves every due message into the priority order and takes the first
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("taken");
        assertThat(redis.call("ZCARD", KeyLayout.prefix("prio-ready", 0) + "ready")).isEqualTo(5L); // 4 and the keep
        assertThat(q.stats().ready()).isEqualTo(4);
        RedisQueueBrowser.Page page = RedisQueueBrowser.of(q).page(RedisQueueBrowser.State.READY, Optional.empty(), 10);
        assertThat(page.total()).isEqualTo(4);
        assertThat(page.entries()).extracting(RedisQueueBrowser.Entry::id).startsWith(cancelled.id(), rescheduled.id(),
                "r1");
        assertThat(RedisQueueBrowser.of(q).find(cancelled.id())).hasValueSatisfying(e ->
                assertThat(e.state()).isEqualTo(RedisQueueBrowser.State.READY));
        assertThat(q.cancel(cancelled.id())).isTrue();
        assertThat(q.reschedule(rescheduled.id(), FAR)).isTrue();
        assertThat(q.offer(at("replacement", 1).id("r1").onConflict(Message.Conflict.REPLACE)).outcome())
                .isEqualTo(Offered.Outcome.REPLACED);
        assertThat(q.stats().ready()).isEqualTo(2);
        assertThat(q.stats().delayed()).isEqualTo(1);
        assertThat(page.entries()).allSatisfy(e -> assertThat(e.at()).isBeforeOrEqualTo(page.now()));
        RedisQueueBrowser.Page delayed = RedisQueueBrowser.of(q).page(RedisQueueBrowser.State.DELAYED,
                Optional.empty(), 10);
        assertThat(delayed.entries()).singleElement().satisfies(e -> assertThat(e.at())
                .isAfter(delayed.now().plus(FAR).minusSeconds(60)).isBefore(delayed.now().plus(FAR).plusSeconds(60)));
        assertThat(valuesOf(q.poll(10, Duration.ZERO))).containsExactly("kept", "replacement");
    }

    @Test
    void messagesWaitingInThePriorityOrderAndMessagesJustDueAreTakenTogetherInOrder() throws Exception {
        RedisDelayedQueue<String> q = open("prio-merge");
        q.offer(at("one-a", 1));
        q.offer(at("one-b", 1));
        q.offer(at("one-c", 1));
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("one-a"); // one-b and one-c wait in ready
        q.offer(at("zero", 0));
        q.offer(at("five", 5));
        q.offer(at("one-d", 1));
        assertThat(valuesOf(q.poll(2, Duration.ZERO))).containsExactly("five", "one-b");
        assertThat(valuesOf(q.poll(10, Duration.ZERO))).containsExactly("one-c", "one-d", "zero");
    }

    @Test
    void aPriorityOvertakesADueBacklogLargerThanOneCallMoves() throws Exception {
        RedisDelayedQueue<String> q = open("prio-backlog");
        for (int batch = 0; batch < 2; batch++) {
            List<String> backlog = new ArrayList<>();
            for (int i = 0; i < 750; i++) {
                backlog.add("b" + batch + "-" + i);
            }
            q.offerAll(backlog, Duration.ZERO);
        }
        q.offer(at("urgent", 1));
        // One poll moves at most 1,000 due messages into the priority order; the next moves the rest.
        List<String> firstThree = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            firstThree.add(q.poll(Duration.ZERO).value());
        }
        assertThat(firstThree).contains("urgent");
    }

    @Test
    void aDueMessageWithAPriorityGoesStraightToTheReadySetAndADelayedOneWaits() throws Exception {
        RedisDelayedQueue<String> q = open("prio-straight");
        q.offer(at("now", 3));
        q.offerAll(List.of(at("now too", 2), at("later", 9).delay(FAR), Message.of("plain")));
        String prefix = KeyLayout.prefix("prio-straight", 0);
        assertThat(redis.call("ZCOUNT", prefix + "ready", "-inf", "(+inf")).isEqualTo(2L);
        assertThat(redis.call("ZCOUNT", prefix + "pending", "-inf", "(+inf")).as("plain").isEqualTo(1L);
        assertThat(q.stats().delayed()).as("later, in the compact store").isEqualTo(1);
        assertThat(valuesOf(q.poll(10, Duration.ZERO))).containsExactly("now", "now too", "plain");
    }

    @Test
    void aQueueWithoutPrioritiesKeepsThePlainLayout() throws Exception {
        RedisDelayedQueue<String> q = open("prio-none");
        q.offer(Message.of("a"));
        q.offer("b", Duration.ZERO);
        assertThat(valuesOf(q.poll(10, Duration.ZERO))).containsExactly("a", "b");
        String prefix = KeyLayout.prefix("prio-none", 0);
        assertThat(redis.call("EXISTS", prefix + "ordered")).isEqualTo(0L);
        assertThat(redis.call("EXISTS", prefix + "ready")).isEqualTo(0L);
    }

    @Test
    void aBatchWithPrioritiesIsOrderedInEveryPartition() throws Exception {
        RedisDelayedQueue<String> q = queues.track(RedisDelayedQueue.builder(redis.uri(), "prio-batch", Codec.string())
                .partitions(3).build());
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            batch.add(at("m" + i, i % 3));
        }
        q.offerAll(batch);
        for (int p = 0; p < 3; p++) {
            assertThat(redis.call("EXISTS", KeyLayout.prefix("prio-batch", p) + "ordered")).isEqualTo(1L);
        }
        List<Delivery<String>> all = new ArrayList<>();
        for (int polls = 0; polls < 50 && all.size() < 30; polls++) {
            all.addAll(q.poll(30, Duration.ZERO));
        }
        assertThat(all).hasSize(30);
    }

    @Test
    void anAsyncOfferWithAPriorityIsOrdered() throws Exception {
        DelayedQueue<String> q = open("prio-async");
        q.offerAsync(at("low", 0)).toCompletableFuture().join();
        q.offerAsync(at("high", 3)).toCompletableFuture().join();
        assertThat(valuesOf(q.poll(10, Duration.ZERO))).containsExactly("high", "low");
    }
}
