package io.clockwork.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link YoungCollectionFloor} prints one row per case, each measured across a collection, with the live bytes the
 * case made, and refuses bad options.
 */
class YoungCollectionFloorTest {

    private static final String FIGURE = "[0-9]+\\.[0-9]{2} \\([0-9]+\\.[0-9]{2}\\)";

    @Test
    void printsARowPerCaseWithTheBytesItKeptLive() {
        String table = run("--count", "20000", "--rounds", "2", "--cases", "none,ids,queue");
        double none = liveMegabytes(table, "none", "0");
        double ids = liveMegabytes(table, "ids", "20,000");
        double queue = liveMegabytes(table, "queue", "20,000");
        // 20,000 ids of 15 to 18 characters are a 24-byte string and a 32- or 40-byte array each: 1.1 to 1.3 MB.
        assertThat(ids).isBetween(1.0, 1.4);
        assertThat(none).isLessThan(ids);
        // The queue's messages hold their ids and more.
        assertThat(queue).isGreaterThan(ids);
    }

    @Test
    void refusesBadOptions() {
        assertThatThrownBy(() -> run("--count", "0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--count");
        assertThatThrownBy(() -> run("--rounds", "0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--rounds");
        assertThatThrownBy(() -> run("--cases", "ids,timer")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timer");
    }

    private static double liveMegabytes(String table, String kind, String count) {
        Matcher row = Pattern.compile("(?m)^\\| " + kind + " \\| " + count + " \\| ([0-9]+\\.[0-9]) \\| " + FIGURE
                + " \\| (" + FIGURE + "|not reported) \\| [0-9]+ \\| [0-2] \\|$").matcher(table);
        assertThat(row.find()).as("a row for %s in%n%s", kind, table).isTrue();
        return Double.parseDouble(row.group(1));
    }

    private static String run(String... args) {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            YoungCollectionFloor.main(args);
        } finally {
            System.setOut(out);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
