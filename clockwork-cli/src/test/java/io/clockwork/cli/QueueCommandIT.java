package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
        // the seed offered three, and a poll took bad-1 and dead-lettered it as undecodable
        assertThat(r.out()).contains("since the queue was created:")
                .containsPattern("offered +3\\b").containsPattern("delivered +1\\b").containsPattern("acked +0\\b")
                .containsPattern("retried +0\\b").containsPattern("dead-lettered +1\\b");
    }

    @Test
    void statsShowsThePollsARateLimitHeldBack() {
        Cli.Result r = queue("stats");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).as("a Redis queue has no rate limit: none held back")
                .containsPattern("rate-limited +0 +\\(polls a rate limit held back\\)");
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
    void promoteMakesADelayedMessageReadyAndFailsOnAnUnknownOne() {
        Cli.Result ok = queue("promote", "order-2");
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("promoted order-2");
        assertThat(queue("stats").out()).containsPattern("delayed +1\\b").containsPattern("ready +1\\b");
        Cli.Result missing = queue("promote", "order-1", "order-9");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.out()).contains("promoted order-1");
        assertThat(missing.err()).contains("not promoted order-9: unknown, in flight, dead or gone");
    }

    @Test
    void pauseHoldsDeliveriesForEveryClientUntilResume() throws InterruptedException {
        assertThat(queue("promote", "order-1").exit()).isZero();
        Cli.Result paused = queue("pause");
        assertThat(paused.exit()).as(paused.err()).isZero();
        assertThat(paused.out()).contains("paused orders");
        assertThat(queue("stats").out()).containsPattern("paused +yes");
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "orders", Codec.string()).build()) {
            assertThat(q.isPaused()).isTrue();
            assertThat(q.poll(Duration.ZERO)).isNull();
            Cli.Result resumed = queue("resume");
            assertThat(resumed.exit()).as(resumed.err()).isZero();
            assertThat(resumed.out()).contains("resumed orders");
            assertThat(q.poll(Duration.ofSeconds(5))).isNotNull().extracting(d -> d.id()).isEqualTo("order-1");
        }
        assertThat(queue("stats").out()).containsPattern("paused +no");
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

    @ParameterizedTest
    @ValueSource(strings = {"stats", "peek", "list", "cancel order-1", "promote order-1", "pause", "resume",
        "requeue-dead bad-1", "requeue-dead --all",
        "purge-dead --yes"})
    void unknownQueueIsAFailureInOneLineAndCreatesNothing(String command, RedisServerProcess redis) {
        List<String> before = DemoCommandRedisIT.keys(redis);
        String[] args = command.split(" ");
        String[] argv = new String[args.length + 5];
        argv[0] = "queue";
        System.arraycopy(args, 0, argv, 1, args.length);
        System.arraycopy(new String[] {"--redis", uri, "--queue", "ordres"}, 0, argv, args.length + 1, 4);
        Cli.Result r = Cli.run(argv);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("unknown queue 'ordres' on 127.0.0.1:", "check --queue");
        assertThat(DemoCommandRedisIT.keys(redis)).as("keys after the command").containsExactlyInAnyOrderElementsOf(
                before);
    }

    @Test
    void adminCommandsReadTheStoredPartitionCount(RedisServerProcess redis) {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "wide", Codec.string()).partitions(4)
                .build()) {
            for (int i = 0; i < 100; i++) {
                q.offer("order-" + i, "pay " + i, Duration.ofHours(1));
            }
        }
        Cli.Result r = Cli.run("queue", "stats", "--redis", uri, "--queue", "wide");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("partitions +4\\b").containsPattern("delayed +100\\b")
                .containsPattern("total +100\\b");
        Cli.Result peek = Cli.run("queue", "peek", "--redis", uri, "--queue", "wide");
        assertThat(peek.out()).contains("100 delayed");
        Cli.Result cancel = Cli.run("queue", "cancel", "--redis", uri, "--queue", "wide", "order-7", "order-42");
        assertThat(cancel.exit()).as(cancel.err()).isZero();

        Cli.Result same = Cli.run("queue", "stats", "--redis", uri, "--queue", "wide", "--partitions", "4");
        assertThat(same.exit()).as(same.err()).isZero();
        assertThat(same.out()).containsPattern("total +98\\b");
        Cli.Result other = Cli.run("queue", "stats", "--redis", uri, "--queue", "wide", "--partitions", "1");
        assertThat(other.exit()).isEqualTo(1);
        assertThat(other.errLines()).isEqualTo(1);
        assertThat(other.err()).contains("has 4 partition(s)", "asks for 1");
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
    void aServerThatNeverAnswersFailsWithinTheConnectTimeout() throws IOException {
        // A listening socket nobody reads: the kernel completes TCP connects, nothing ever answers.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            long start = System.nanoTime();
            Cli.Result r = Cli.run("queue", "stats", "--redis", "redis://127.0.0.1:" + silent.getLocalPort(),
                    "--queue", "orders");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(r.exit()).isEqualTo(1);
            assertThat(r.errLines()).isEqualTo(1);
            assertThat(r.err()).contains("127.0.0.1:" + silent.getLocalPort(), "no reply");
            // The CLI's 2 s, not the library's default 10 s (nor the minute it took before connectTimeout).
            assertThat(took).isLessThan(RedisTarget.CONNECT_TIMEOUT.plusSeconds(6));
        }
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
