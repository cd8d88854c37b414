package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.redisson.RedisRedisson;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.redisson.RBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/** {@code clockwork queue migrate-redisson} on a queue written by the real Redisson client. */
@ExtendWith(RedisExtension.class)
class QueueMigrateRedissonCommandIT {

    private String uri;
    private RedissonClient redisson;

    /** Three delayed elements of Redisson's queue "jobs". */
    @BeforeEach
    void seed(RedisServerProcess redis) {
        uri = redis.uri();
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2);
        redisson = Redisson.create(config);
        org.redisson.api.RDelayedQueue<String> delayed = redisson.getDelayedQueue(redisson.getBlockingQueue("jobs"));
        delayed.offer("a", 1, TimeUnit.HOURS);
        delayed.offer("b", 2, TimeUnit.HOURS);
        delayed.offer("c", 3, TimeUnit.HOURS);
        delayed.destroy();
    }

    @AfterEach
    void close() {
        redisson.shutdown();
    }

    @Test
    void aDryRunCountsAndWritesNothingThenTheRunMovesEverything() {
        Cli.Result dry = Cli.run("queue", "migrate-redisson", "--redis", uri, "--from", "jobs", "--to", "jobs",
                "--dry-run");
        assertThat(dry.exit()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("would move 0 due and 3 delayed elements of Redisson queue 'jobs'");
        assertThat(redisson.getKeys().countExists("redisson_delay_queue_timeout:{jobs}")).isEqualTo(1);

        Cli.Result run = Cli.run("queue", "migrate-redisson", "--redis", uri, "--from", "jobs", "--to", "jobs",
                "--batch", "2");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("moved 0 due and 3 delayed elements", "in 2 batches; 0 left");
        assertThat(redisson.getKeys().countExists("redisson_delay_queue_timeout:{jobs}",
                "redisson_delay_queue:{jobs}")).isZero();
        try (RedisRedisson face = RedisRedisson.create(uri)) {
            RBlockingQueue<String> jobs = face.getBlockingQueue("jobs", Codec.string());
            assertThat(face.getDelayedQueue(jobs).readAll()).containsExactly("a", "b", "c");
        }

        Cli.Result again = Cli.run("queue", "migrate-redisson", "--redis", uri, "--from", "jobs", "--to", "jobs");
        assertThat(again.exit()).as(again.err()).isEqualTo(1);
        assertThat(again.err()).contains("no Redisson queue 'jobs' with elements", "a queue that has moved has none");
    }

    @Test
    void anUnknownRedissonQueueIsNamedNotCountedAsZero() {
        for (String[] extra : new String[][] {{"--dry-run"}, {}}) {
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("queue", "migrate-redisson",
                    "--redis", uri, "--from", "nosuch", "--to", "jobs"));
            args.addAll(java.util.List.of(extra));
            Cli.Result r = Cli.run(args.toArray(String[]::new));
            assertThat(r.exit()).as(r.out()).isEqualTo(1);
            assertThat(r.errLines()).isEqualTo(1);
            assertThat(r.err()).contains("no Redisson queue 'nosuch' with elements on 127.0.0.1:",
                    "redisson_delay_queue_timeout:{nosuch}", "check --from");
            assertThat(r.out()).doesNotContain("would move", "moved");
        }
        assertThat(redisson.getKeys().countExists("redisson_delay_queue_timeout:{jobs}")).isEqualTo(1);
    }

    @Test
    void anEmptyFromOrToIsBadUsageNamingTheOption() {
        Cli.Result from = Cli.run("queue", "migrate-redisson", "--redis", uri, "--from", "", "--to", "jobs");
        assertThat(from.exit()).isEqualTo(2);
        assertThat(from.err()).contains("'--from'", "must not be empty");
        Cli.Result to = Cli.run("queue", "migrate-redisson", "--redis", uri, "--from", "jobs", "--to", " ");
        assertThat(to.exit()).isEqualTo(2);
        assertThat(to.err()).contains("'--to'", "name must be 1 to 200 non-blank characters");
    }

    @Test
    void aBatchOutOfRangeIsBadUsage() {
        Cli.Result r = Cli.run("queue", "migrate-redisson", "--redis", uri, "--from", "jobs", "--to", "x",
                "--batch", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--batch must be 1 to 10000, was 0");
    }

    @Test
    void fromAndToAreRequired() {
        Cli.Result r = Cli.run("queue", "migrate-redisson", "--redis", uri, "--from", "jobs");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--to");
    }
}
