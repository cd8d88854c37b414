package io.clockwork.benchmarks.postgres;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * PostgresJobHarness at a tiny size on a real PostgreSQL server, every rival of this build (each in its own JVM, as
 * the harness runs them): every job of every phase is handled (a child whose jobs do not all run within its limit
 * fails the run), and every table prints a row per rival.
 */
class PostgresJobHarnessIT {

    @Test
    void aTinyRunHandlesEveryJobOfEveryRivalAndPrintsTheTables() throws Exception {
        String report = PostgresJobHarness.run(new String[] {"--jobs", "200", "--pending", "300", "--small-pending",
            "100", "--due", "100", "--lateness-rate", "20", "--lateness-seconds", "1"});

        for (String rival : JobRival.available()) {
            assertThat(report).as(rival).contains("- " + rival + ": `");
            // throughput, pending, lateness, CPU: one row each
            assertThat(report.lines().filter(l -> l.startsWith("| " + rival + " | "))).as(rival)
                    .hasSizeGreaterThanOrEqualTo(4);
            assertThat(report).as(rival).contains("| " + rival + " | 20 of 20 |");
            assertThat(report).as(rival).containsPattern("\\| " + rival + " \\| [0-9,]+ \\| [0-9,]+ \\| [0-9,]+ \\| "
                    + "200 of 200 \\| [0-9]+ \\|");
        }
    }

    @Test
    void anUnknownRivalIsRefusedByName() {
        assertThatThrownBy(() -> PostgresJobHarness.run(new String[] {"--rivals", "quartz"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--rivals")
                .hasMessageContaining("quartz");
    }
}
