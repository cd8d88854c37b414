package io.clockwork.cli;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisSchedules;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.ScheduleInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code clockwork schedule ...} against a real redis-server. */
@ExtendWith(RedisExtension.class)
class ScheduleCommandIT {

    private String uri;

    @BeforeEach
    void server(RedisServerProcess redis) {
        uri = redis.uri();
    }

    private Cli.Result schedule(String sub, String... args) {
        String[] argv = new String[args.length + 6];
        argv[0] = "schedule";
        argv[1] = sub;
        argv[2] = "--redis";
        argv[3] = uri;
        argv[4] = "--queue";
        argv[5] = "jobs";
        System.arraycopy(args, 0, argv, 6, args.length);
        return Cli.run(argv);
    }

    private List<ScheduleInfo> stored() {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "jobs", Codec.string()).build();
             RedisSchedules<String> s = RedisSchedules.builder(q).build()) {
            return s.list();
        }
    }

    @Test
    void addListPauseResumeAndDeleteASchedule() {
        Cli.Result added = schedule("add", "--name", "report", "--cron", "0 9 * * MON-FRI", "--zone", "Europe/Paris",
                "--value", "build the report", "--header", "tenant=acme", "--misfire", "skip");
        assertThat(added.exit()).as(added.err()).isZero();
        assertThat(added.out()).contains("added queue 'jobs' on 127.0.0.1:", "report", "active",
                "cron:0 9 * * MON-FRI|Europe/Paris", "skip", "next 20");
        Cli.Result again = schedule("add", "--name", "report", "--cron", "0 9 * * MON-FRI", "--zone", "Europe/Paris",
                "--value", "build the report", "--header", "tenant=acme", "--misfire", "skip");
        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(again.out()).contains("updated queue 'jobs'");
        assertThat(stored()).hasSize(1);
        assertThat(schedule("add", "--name", "beat", "--every", "1h").exit()).isZero();

        Cli.Result list = schedule("list");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).contains("queue 'jobs' on 127.0.0.1:", "2 schedules");
        assertThat(list.out().lines().skip(1).toList()).hasSize(2);
        assertThat(list.out().lines().skip(1).findFirst().orElseThrow()).contains("beat", "rate:PT1H", "once");

        assertThat(schedule("pause", "report").out()).contains("paused report");
        assertThat(stored().get(1).paused()).isTrue();
        assertThat(schedule("list").out()).containsPattern("report +paused");
        Cli.Result pausedAgain = schedule("pause", "report");
        assertThat(pausedAgain.exit()).isEqualTo(1);
        assertThat(pausedAgain.err()).contains("not paused report: unknown or already paused");
        assertThat(schedule("resume", "report").out()).contains("resumed report");
        assertThat(stored().get(1).paused()).isFalse();
        assertThat(stored().get(1).nextFire()).isPresent();

        Cli.Result deleted = schedule("delete", "report", "nothing");
        assertThat(deleted.exit()).isEqualTo(1);
        assertThat(deleted.out()).contains("deleted report");
        assertThat(deleted.err()).contains("not deleted nothing: unknown");
        assertThat(stored()).extracting(ScheduleInfo::name).containsExactly("beat");
    }

    @Test
    void anAddedScheduleFiresItsValueAndHeadersThroughARunningScheduler() throws InterruptedException {
        assertThat(schedule("add", "--name", "tick", "--every", "200ms", "--value", "hello", "--header", "k=v")
                .exit()).isZero();
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "jobs", Codec.string()).build();
             RedisSchedules<String> s = RedisSchedules.builder(q).build().start()) {
            Delivery<String> d = q.poll(Duration.ofSeconds(10));
            assertThat(d).isNotNull();
            assertThat(d.value()).isEqualTo("hello");
            assertThat(d.headers()).isEqualTo(Map.of("k", "v"));
            assertThat(Occurrence.of(d.id()).orElseThrow().schedule()).isEqualTo("tick");
            assertThat(s.get("tick").orElseThrow().lastFire()).isPresent();
        }
    }

    @Test
    void badRulesZonesRatesAndNamesAreUsageErrorsNamingTheArgumentAndStoreNothing() {
        String[][] bad = {
            {"--name", "x", "--cron", "61 * * * *"},
            {"--name", "x", "--cron", "0 0 30 2 *"},
            {"--name", "x", "--cron", "* * *"},
            {"--name", "x", "--cron", "* * * * *", "--zone", "Mars/Olympus"},
            {"--name", "x", "--every", "0s"},
            {"--name", "x", "--delay-after", "0ms"},
            {"--name", "n".repeat(201), "--every", "1s"},
            {"--name", "x", "--every", "1s", "--misfire", "sometimes"},
        };
        String[] named = {"cron '61 * * * *' is malformed", "cron '0 0 30 2 *' never fires", "cron must have 5 fields",
            "zone 'Mars/Olympus'", "period must be", "delay must be", "name must be at most 200 UTF-8 bytes",
            "misfire must be"};
        for (int i = 0; i < bad.length; i++) {
            Cli.Result r = schedule("add", bad[i]);
            assertThat(r.exit()).as("%s: %s", String.join(" ", bad[i]), r.err()).isEqualTo(2);
            assertThat(r.err()).contains(named[i]);
        }
        Cli.Result both = schedule("add", "--name", "x", "--every", "1s", "--cron", "* * * * *");
        assertThat(both.exit()).isEqualTo(2);
        assertThat(stored()).isEmpty();
    }

    @Test
    void listingTheSchedulesOfAnUnknownQueueFailsAndCreatesNothing() {
        Cli.Result r = schedule("list");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("unknown queue 'jobs'", "check --queue");
    }
}
