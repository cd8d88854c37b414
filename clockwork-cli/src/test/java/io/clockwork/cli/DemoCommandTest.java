package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.cli.demo.DemoCommand;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The demo on the in-process backend, and its argument checks. */
class DemoCommandTest {

    @Test
    void inProcessDemoAccountsForEveryOrder() {
        Cli.Result r = Cli.run("demo", "--orders", "3000", "--workers", "4", "--crashes", "2", "--spread", "300ms",
                "--visibility", "300ms", "--progress", "lines", "--seed", "42");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("3,000 orders, 4 workers, in-process queue (InMemoryDelayedQueue)")
                .containsPattern("scheduled +3,000 ")
                .containsPattern("lost +0 +reconciled by id")
                .contains("crashed holding")
                .containsPattern("lateness +p50 .+ p99 .+ max ")
                .contains("OK: every order accounted for exactly once");
        assertThat(r.err()).isEmpty();
        assertThat(cancelled(r.out()) + delivered(r.out())).isEqualTo(3000);
    }

    @Test
    void demoWithEveryOrderPaidDeliversNothing() {
        Cli.Result r = Cli.run("demo", "--orders", "500", "--paid", "100", "--crashes", "0", "--spread", "100ms",
                "--progress", "none");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).containsPattern("lost +0 ");
        assertThat(cancelled(r.out()) + delivered(r.out())).isEqualTo(500);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--orders 0|--orders must be 1 to 10 million",
        "--workers 0|--workers must be 1 to 256",
        "--workers 2 --crashes 3|--crashes must be 0 to --workers (2)",
        "--paid 101|--paid must be 0 to 100",
        "--role worker|--role worker needs --redis",
        "--role boss|Invalid value for option '--role'",
        "--orders many|Invalid value for option '--orders'",
        "--redis localhost:6379|is not a Redis URI (expected redis://host:port",
        "--redis redis://:6379|is not a Redis URI",
        "extra|Unmatched argument"})
    void badArgumentsGiveOneLineAndExitCode2(String args, String message) {
        String[] argv = ("demo " + args).split(" ");
        Cli.Result r = Cli.run(argv);
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.errLines()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains(message);
        assertThat(r.out()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--orders|0|" + DemoCommand.ORDERS_RANGE,
        "--orders|10000001|" + DemoCommand.ORDERS_RANGE,
        "--workers|257|" + DemoCommand.WORKERS_RANGE,
        "--crashes|5|" + DemoCommand.CRASHES_RANGE,
        "--paid|101|" + DemoCommand.PAID_RANGE,
        "--spread|61m|" + DemoCommand.SPREAD_RANGE,
        "--visibility|9ms|" + DemoCommand.VISIBILITY_RANGE,
        "--visibility|11m|" + DemoCommand.VISIBILITY_RANGE,
        "--timeout|0s|" + DemoCommand.TIMEOUT_RANGE,
        "--queue|" + "q123456789q123456789q123456789q123456789q123456789q123456789q123456789q123456789"
                + "q123456789q123456789q123456789q123456789q123456789q123456789q123456789x|" + DemoCommand.QUEUE_RANGE})
    void helpStatesTheRangeThatEachOptionEnforces(String option, String outside, String range) {
        assertThat(optionHelp(Cli.run("demo", "--help").out(), option)).contains(range);

        Cli.Result r = Cli.run("demo", option, outside);
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains(option + " must be " + range);
    }

    @Test
    void unreachableRedisFailsFastWithExitCode1() {
        int port = Cli.closedPort();
        Cli.Result r = Cli.run("demo", "--redis", "redis://127.0.0.1:" + port, "--orders", "10");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("cannot reach Redis at 127.0.0.1:" + port + ": connection refused");
    }

    /** @return an option's description in a help text, on one line: its own line and the more indented ones below */
    private static String optionHelp(String help, String option) {
        List<String> lines = help.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).matches(" {2,6}(-\\w, )?" + option + "=.*")) {
                StringBuilder sb = new StringBuilder(lines.get(i).strip());
                for (int j = i + 1; j < lines.size() && lines.get(j).startsWith(" ".repeat(10)); j++) {
                    sb.append(' ').append(lines.get(j).strip());
                }
                return sb.toString();
            }
        }
        throw new AssertionError(option + " not in " + help);
    }

    static long cancelled(String out) {
        return count(out, "cancelled");
    }

    static long delivered(String out) {
        return count(out, "delivered");
    }

    private static long count(String out, String what) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^  " + what + " +([\\d,]+) ").matcher(out);
        assertThat(m.find()).as(what + " in " + out).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }
}
