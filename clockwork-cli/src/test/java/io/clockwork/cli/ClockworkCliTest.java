package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ClockworkCliTest {

    @Test
    void helpListsTheThreeCommandsAndExitCodes() {
        Cli.Result r = Cli.run("--help");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("Usage: clockwork", "demo", "queue", "bench", "Exit codes: 0 success, 1 failure, "
                + "2 bad usage");
        assertThat(r.err()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo", "queue", "bench", "queue stats", "queue list", "queue peek", "queue cancel",
        "queue requeue-dead", "queue purge-dead"})
    void everyCommandHasHelp(String command) {
        String[] args = (command + " --help").split(" ");
        Cli.Result r = Cli.run(args);
        assertThat(r.exit()).isZero();
        assertThat(r.out()).startsWith("Usage: clockwork " + command);
        assertThat(r.err()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo", "queue stats", "queue list", "queue peek", "queue cancel", "queue requeue-dead",
        "queue purge-dead"})
    void everyCommandOnRedisExplainsTheUriItsSourcesAndTheirOrder(String command) {
        Cli.Result r = Cli.run((command + " --help").split(" "));
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("--redis=URI", "--redis-file=PATH", "CLOCKWORK_REDIS_URI",
                "--redis wins over --redis-file, which wins over the", "redis://host:port",
                "redis://:password@host:port", "redis://user:password@host:port", "redis://host:port/2",
                "rediss://host:port", "verifyPeer=CA", "NONE, CA or FULL", "@ as %40");
        assertThat(r.out().lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "redis://127.0.0.1:6379|redis://127.0.0.1:6379",
        "redis://ops:hunter22@h:6379/2|redis://ops:***@h:6379/2",
        "redis://:hunter22@h|redis://:***@h",
        "redis://hunter22@h|redis://***@h",
        "rediss://ops:p@ss@h:6380|rediss://ops:***@h:6380",
        "ops:hunter22@h:6379|***@h:6379"})
    void aUriShownInAMessageHasNoPassword(String typed, String shown) {
        assertThat(RedisTarget.redactUri(typed)).isEqualTo(shown);
    }

    @Test
    void aParsedTargetShowsItselfWithoutItsPassword() {
        RedisTarget t = RedisTarget.parse("rediss://ops:hunter%4022@10.0.0.5:6380/2?verifyPeer=CA");
        assertThat(t).hasToString("rediss://ops:***@10.0.0.5:6380/2?verifyPeer=CA");
        assertThat(t.where()).isEqualTo("10.0.0.5:6380");
        assertThat(t.hasPassword()).isTrue();
        assertThat(t.redact("auth failed for hunter@22 (hunter%4022)")).isEqualTo("auth failed for *** (***)");
    }

    @Test
    void aUriPicocliCouldNotUseIsQuotedWithoutItsPassword() {
        Cli.Result r = Cli.run("queue", "stats", "--queue", "q", "rediss://ops:hunter@22@h:6380/1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("'rediss://ops:***@h:6380/1'").doesNotContain("hunter").doesNotContain("22@");
    }

    @Test
    void unixSocketsAndSentinelsAreRefusedWithAReason() {
        Cli.Result socket = Cli.run("demo", "--redis", "redis-socket:///tmp/redis.sock");
        assertThat(socket.exit()).isEqualTo(2);
        assertThat(socket.err()).contains("Unix sockets are not supported");
        Cli.Result sentinel = Cli.run("demo", "--redis", "redis-sentinel://h:26379?sentinelMasterId=m");
        assertThat(sentinel.exit()).isEqualTo(2);
        assertThat(sentinel.err()).contains("Sentinel URIs are not supported");
    }

    @Test
    void versionPrintsOneLine() {
        Cli.Result r = Cli.run("--version");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).startsWith("clockwork ");
    }

    @Test
    void noCommandIsBadUsageInOneLine() {
        Cli.Result r = Cli.run();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("missing command: demo, queue, dashboard or bench");
    }

    @Test
    void unknownCommandIsBadUsageInOneLine() {
        Cli.Result r = Cli.run("demoo");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).startsWith("clockwork: ").contains("demoo").contains("did you mean demo?");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "no-such|clockwork: unknown command 'no-such' (valid: demo, queue, schedule, dashboard, bench)",
        "no-such --help|clockwork: unknown command 'no-such' (valid: demo, queue, schedule, dashboard, bench)",
        "--help no-such|clockwork: unknown command 'no-such' (valid: demo, queue, schedule, dashboard, bench)",
        "--version no-such|clockwork: unknown command 'no-such' (valid: demo, queue, schedule, dashboard, bench)",
        "queue no-such|clockwork queue: unknown subcommand 'no-such' (valid: stats, peek, list, cancel, promote, "
                + "pause, resume, requeue-dead, purge-dead, migrate-redisson, delete)",
        "queue no-such --help|clockwork queue: unknown subcommand 'no-such' (valid: stats, peek, list, cancel, "
                + "promote, pause, resume, requeue-dead, purge-dead, migrate-redisson, delete)",
        "queue --help no-such|clockwork queue: unknown subcommand 'no-such' (valid: stats, peek, list, cancel, "
                + "promote, pause, resume, requeue-dead, purge-dead, migrate-redisson, delete)",
        "queue stat --help|clockwork queue: unknown subcommand 'stat' (valid: stats, peek, list, cancel, "
                + "promote, pause, resume, requeue-dead, purge-dead, migrate-redisson, delete); did you mean stats",
        "queue stats no-such --help|clockwork queue stats: Unmatched argument at index 2: 'no-such'",
        "queue stats --bogus --help|clockwork queue stats: Unknown option: '--bogus'",
        "demo extra --help|clockwork demo: Unmatched argument at index 1: 'extra'",
        "bench --bogus --help|clockwork bench: Unknown option: '--bogus'"})
    void anUnknownSubcommandOrArgumentIsBadUsageEvenWithHelp(String args, String error) {
        Cli.Result r = Cli.run(args.split(" "));
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).startsWith(error);
    }

    @Test
    void misspelledOptionSuggestsTheRightOne() {
        Cli.Result r = Cli.run("demo", "--ordrs", "5");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).startsWith("clockwork demo: ").contains("--ordrs", "did you mean --orders?",
                "see 'clockwork demo --help'");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void queueWithoutSubcommandIsBadUsage() {
        Cli.Result r = Cli.run("queue");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("missing subcommand");
    }

    @Test
    void durationsAcceptShortAndIsoForms() {
        assertThat(DurationConverter.parse("250ms")).hasMillis(250);
        assertThat(DurationConverter.parse("3s")).hasSeconds(3);
        assertThat(DurationConverter.parse("2m")).hasMinutes(2);
        assertThat(DurationConverter.parse("PT1H")).hasHours(1);
    }

    @Test
    void malformedDurationIsBadUsage() {
        Cli.Result r = Cli.run("demo", "--spread", "soon");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("'soon' is not a duration");
    }
}
