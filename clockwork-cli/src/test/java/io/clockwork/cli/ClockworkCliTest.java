package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

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
        assertThat(r.err()).contains("missing command: demo, queue or bench");
    }

    @Test
    void unknownCommandIsBadUsageInOneLine() {
        Cli.Result r = Cli.run("demoo");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).startsWith("clockwork: ").contains("demoo").contains("did you mean demo?");
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
