package io.clockwork.benchmarks.queue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The BullMQ rival on a real redis-server: what it reports is what Redis holds afterwards (BullMQ's own keys, read
 * here over a plain connection), and the server-side figures of its timed part are real. Needs node and npm on the
 * PATH; without them it fails, saying so, rather than pass without running BullMQ.
 */
class BullMqRivalIT {

    private static RedisServers servers;
    private static RedisServers.Server server;

    @BeforeAll
    static void startServer() {
        String why = BullMqRival.unavailable();
        if (why != null) {
            fail("the BullMQ rival cannot run on this machine: " + why + ". Install Node.js and npm (.ci/run does).");
        }
        servers = new RedisServers("redis-server");
        server = servers.standalone();
    }

    @AfterAll
    static void stopServer() {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void everyAddIsADelayedJobInRedisAndOneScriptCall() {
        BullMqRival.Run run = BullMqRival.addCount(server, "it-add", 4, 3_600_000, 1_000);

        assertThat(run.mode()).isEqualTo("add");
        assertThat(run.jobs()).isEqualTo(1_000);
        assertThat(run.versions()).contains("BullMQ 6.7.0", "ioredis 5.11.1");
        assertThat(server.call("ZCARD", "bull:it-add:delayed")).isEqualTo(1_000L);
        assertThat(server.call("LLEN", "bull:it-add:wait")).isEqualTo(0L);
        assertThat(server.call("GET", "bull:it-add:id")).isEqualTo("1000");
        assertThat(run.scriptCalls()).isEqualTo(1_000);
        assertThat(run.scriptMicrosPerCall()).isPositive();
        assertThat(run.redisCpuMillis()).isPositive();
        assertThat(run.perSecond()).isPositive();
    }

    @Test
    void aWorkerCompletesEveryJobAndRedisKeepsNoneOfThem() {
        BullMqRival.Run run = BullMqRival.drain(server, "it-drain", 1_000, 4, false);

        assertThat(run.mode()).isEqualTo("drain");
        assertThat(run.jobs()).isEqualTo(1_000);
        assertThat(server.call("GET", "bull:it-drain:id")).isEqualTo("1000");
        for (String list : List.of("wait", "active", "paused")) {
            assertThat(server.call("LLEN", "bull:it-drain:" + list)).as(list).isEqualTo(0L);
        }
        for (String set : List.of("delayed", "prioritized", "completed", "failed")) {
            assertThat(server.call("ZCARD", "bull:it-drain:" + set)).as(set).isEqualTo(0L);
        }
        assertThat(server.call("KEYS", "bull:it-drain:[0-9]*")).asList().isEmpty();
        assertThat(completedEvents("bull:it-drain:events")).isEqualTo(1_000);
        assertThat(run.scriptCalls()).isGreaterThanOrEqualTo(1_000);
        assertThat(run.redisCpuMillis()).isPositive();
    }

    @Test
    void keptCompletedJobsNumberTheJobsAdded() {
        BullMqRival.Run run = BullMqRival.drain(server, "it-keep", 300, 50, true);

        assertThat(run.jobs()).isEqualTo(300);
        assertThat(server.call("ZCARD", "bull:it-keep:completed")).isEqualTo(300L);
        assertThat(server.call("LLEN", "bull:it-keep:wait")).isEqualTo(0L);
        assertThat(server.call("ZCARD", "bull:it-keep:failed")).isEqualTo(0L);
    }

    /** Entries of BullMQ's events stream whose {@code event} field is {@code completed}. */
    private static long completedEvents(String stream) {
        List<?> entries = (List<?>) server.call("XRANGE", stream, "-", "+");
        long completed = 0;
        for (Object entry : entries) {
            List<?> fields = (List<?>) ((List<?>) entry).get(1);
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                if (fields.get(i).equals("event") && fields.get(i + 1).equals("completed")) {
                    completed++;
                }
            }
        }
        return completed;
    }
}
