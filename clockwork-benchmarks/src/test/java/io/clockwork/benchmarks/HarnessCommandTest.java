package io.clockwork.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A child JVM's command line: this JVM's options, then the extra ones; an extra option that selects a collector
 * replaces an inherited one (a JVM given two refuses to start), and nothing else inherited is dropped.
 */
class HarnessCommandTest {

    private static final List<String> INHERITED = List.of("-Xms8g", "-XX:+UseG1GC", "-Xmx8g", "-XX:-UseParallelGC");

    @Test
    void anExtraCollectorReplacesTheInheritedOnes() {
        List<String> command = Harness.command(HarnessCommandTest.class, INHERITED, List.of("-XX:+UseZGC"),
                List.of("--rounds", "1"));

        assertThat(command).containsSubsequence("-Xms8g", "-Xmx8g", "-XX:+UseZGC", "-cp",
                System.getProperty("java.class.path"), HarnessCommandTest.class.getName(), "--rounds", "1");
        assertThat(command).doesNotContain("-XX:+UseG1GC", "-XX:-UseParallelGC");
        assertThat(command.get(0)).endsWith("java");
    }

    @Test
    void withoutAnExtraCollectorEveryInheritedOptionStays() {
        List<String> command = Harness.command(HarnessCommandTest.class, INHERITED, List.of("-Xss2m"), List.of());

        assertThat(command.subList(1, 6)).containsExactly("-Xms8g", "-XX:+UseG1GC", "-Xmx8g", "-XX:-UseParallelGC",
                "-Xss2m");
    }
}
