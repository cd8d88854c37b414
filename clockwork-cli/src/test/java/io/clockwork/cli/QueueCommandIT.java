package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code clockwork queue ...} against a real redis-server holding a seeded queue. */
@ExtendWith(RedisExtension.class)
class QueueCommandIT {

    private static final byte[] NOT_UTF8 = {(byte) 0xC3, (byte) 0x28, 0x01};

    private String uri;

    /** Two delayed orders and one dead letter (a payload the string codec cannot decode). */
    @BeforeEach
    void seed(RedisServerProcess redis) throws InterruptedException {
        uri = redis.uri();
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "orders", Codec.string()).build();
                RedisDelayedQueue<byte[]> raw = RedisDelayedQueue.builder(uri, "orders", Codec.bytes()).build()) {
            q.offer("order-1", "pay 10", Duration.ofHours(1));
            q.offer("order-2", "pay 20", Duration.ofHours(2));
            killUndecodable(q, raw);
        }
    }

    /** Offers an undecodable payload due now; the string queue's poll moves it to the dead letters on the way. */
    private static void killUndecodable(RedisDelayedQueue<String> q, RedisDelayedQueue<byte[]> raw)
            throws InterruptedException {
        raw.offer("bad-1", NOT_UTF8, Duration.ZERO);
        assertThat(q.poll(Duration.ofMillis(200))).isNull();
        assertThat(q.stats().dead()).isEqualTo(1);
    }

    private Cli.Result queue(String... args) {
        String[] argv = new String[args.length + 5];
        argv[0] = "queue";
        argv[1] = args[0];
        argv[2] = "--redis";
        argv[3] = uri;
        argv[4] = "--queue";
        argv[5] = "orders";
        System.arraycopy(args, 1, argv, 6, args.length - 1);
        return Cli.run(argv);
    }

    @Test
    void statsCountsByState() {
        Cli.Result r = queue("stats");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("queue 'orders' on 127.0.0.1:")
                .containsPattern("delayed +2\\b").containsPattern("ready +0\\b").containsPattern("dead +1\\b")
                .containsPattern("total +3\\b").containsPattern("next due in +(59|60)\\.\\d m|next due in +\\d");
    }

    @Test
    void peekSaysWhatHappensNextInOneLine() {
        Cli.Result r = queue("peek");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines()).hasSize(1);
        assertThat(r.out()).contains("0 ready now; next due in ", "2 delayed, 0 in flight, 1 dead",
                "oldest dead letter bad-1");
    }

    @Test
    void listShowsDeadLettersWithUndecodablePayloadsInHex() {
        Cli.Result r = queue("list");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("1 dead letter", "bad-1", "0xc32801 (3 bytes)");
    }

    @Test
    void cancelRemovesAKnownIdAndFailsOnAnUnknownOne() {
        Cli.Result ok = queue("cancel", "order-1");
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("cancelled order-1");
        Cli.Result missing = queue("cancel", "order-1", "order-2");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.out()).contains("cancelled order-2");
        assertThat(missing.err()).contains("not cancelled order-1");
        assertThat(queue("stats").out()).containsPattern("delayed +0\\b");
    }

    @Test
    void requeueDeadMakesItReadyAndPurgeDeadNeedsYes() throws InterruptedException {
        Cli.Result requeued = queue("requeue-dead", "bad-1");
        assertThat(requeued.exit()).as(requeued.err()).isZero();
        assertThat(requeued.out()).contains("requeued bad-1");
        assertThat(queue("stats").out()).containsPattern("ready +1\\b").containsPattern("dead +0\\b");
        assertThat(queue("requeue-dead", "order-2").exit()).isEqualTo(1);

        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "orders", Codec.string()).build()) {
            assertThat(q.poll(Duration.ofMillis(200))).isNull(); // dies again: still undecodable
        }
        Cli.Result refused = queue("purge-dead");
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.errLines()).isEqualTo(1);
        assertThat(refused.err()).contains("add --yes");
        Cli.Result purged = queue("purge-dead", "--yes");
        assertThat(purged.exit()).as(purged.err()).isZero();
        assertThat(purged.out()).contains("purged 1 dead letter of queue 'orders'");
        assertThat(queue("list").out()).contains("no dead letters");
    }

    @Test
    void requeueAllDeadLetters() {
        Cli.Result r = queue("requeue-dead", "--all");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("requeued 1 dead letter of queue 'orders'");
    }

    @Test
    void unknownQueueIsAFailureInOneLine() {
        Cli.Result r = Cli.run("queue", "stats", "--redis", uri, "--queue", "ordres");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("unknown queue 'ordres' on 127.0.0.1:", "check --queue");
    }

    @Test
    void anEmptiedQueueIsNotUnknown() throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "drained", Codec.string()).build()) {
            q.offer("only", Duration.ZERO);
            assertThat(q.poll(Duration.ofSeconds(5)).ack()).isTrue();
        }
        Cli.Result r = Cli.run("queue", "stats", "--redis", uri, "--queue", "drained");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("total +0\\b");
    }

    @Test
    void unreachableServerIsAFailureInOneLine() {
        int port = Cli.closedPort();
        Cli.Result r = Cli.run("queue", "stats", "--redis", "redis://127.0.0.1:" + port, "--queue", "orders");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("cannot reach Redis at 127.0.0.1:" + port + ": connection refused");
    }

    @Test
    void malformedUriAndMissingOptionsAreBadUsage() {
        Cli.Result bad = Cli.run("queue", "stats", "--redis", "http://127.0.0.1", "--queue", "orders");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.errLines()).isEqualTo(1);
        assertThat(bad.err()).contains("'http://127.0.0.1' is not a Redis URI");
        Cli.Result missing = Cli.run("queue", "stats", "--redis", uri);
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.errLines()).isEqualTo(1);
        assertThat(missing.err()).contains("Missing required option: '--queue=NAME'");
        Cli.Result neither = Cli.run("queue", "requeue-dead", "--redis", uri, "--queue", "orders");
        assertThat(neither.exit()).isEqualTo(2);
        assertThat(neither.errLines()).isEqualTo(1);
    }
}
