package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** ScheduleHarness at a tiny size on a real redis-server: every counted fire time is delivered once. */
class ScheduleHarnessIT {

    @Test
    void aTinyRunDeliversEveryCountedFireTimeOnceAndMeasuresItsLateness() throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("schedules", "30");
        options.put("period-ms", "200");
        options.put("seconds", "2");
        options.put("schedulers", "2");
        options.put("consumers", "2");
        options.put("partitions", "2");
        options.put("scenarios", "spread");
        options.put("redis-server", "redis-server");
        Harness opts = new Harness(new String[0], options);
        try (RedisServers servers = new RedisServers("redis-server")) {
            for (String scenario : new String[] {"aligned", "spread"}) {
                ScheduleHarness.Result r = ScheduleHarness.run(servers.standalone().uri(), scenario, opts);
                assertThat(r.expected()).as(scenario).isPositive();
                assertThat(r.delivered()).as(scenario).isEqualTo(r.expected());
                assertThat(r.duplicates()).as(scenario).isZero();
                assertThat(r.missing()).as(scenario).isZero();
                assertThat(r.latenessMs()).hasSize((int) r.delivered());
                assertThat(r.latenessMs()[0]).as("never early").isGreaterThanOrEqualTo(0);
                assertThat(r.row()).startsWith("| " + scenario + " |");
            }
        }
    }
}
