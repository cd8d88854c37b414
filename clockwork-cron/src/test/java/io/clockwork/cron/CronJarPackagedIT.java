package io.clockwork.cron;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.schedule.ScheduleRule;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The clockwork-cron jar as the build ships it (after package): with clockwork-core alone on an application's class
 * path, a cron rule parses and fires and nothing is printed, since no SLF4J class and no provider reaches the
 * application. Run by the module's {@code packaged} test execution, in the integration-test phase.
 */
class CronJarPackagedIT {

    @TempDir
    Path dir;

    private static Path jar() {
        Path jar = Path.of(System.getProperty("clockwork.cron.jar", "target/none.jar"));
        assertThat(jar).as("the packaged jar (run in the integration-test phase)").isRegularFile();
        return jar;
    }

    @Test
    void aCronRuleRunsWithCoreAloneAndPrintsNothing() throws Exception {
        String core = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.contains("clockwork-core") && !e.contains("test"))
                .findFirst().orElseThrow(() -> new AssertionError("clockwork-core is not on the test class path"));
        Path probeClasses = Path.of(Probe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", String.join(File.pathSeparator, jar().toString(), core, probeClasses.toString()),
                Probe.class.getName()));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(stderr).isZero();
        assertThat(Files.readString(out, StandardCharsets.UTF_8).strip())
                .isEqualTo("1970-01-01T00:30:00Z 1970-01-01T01:00:00Z");
        assertThat(stderr).isEmpty();
    }

    @Test
    void theJarCarriesNoSlf4jOrCronUtilsClassUnderTheirOwnNamesAndThePomListsNeither() throws Exception {
        try (JarFile j = new JarFile(jar().toFile())) {
            assertThat(j.stream().map(e -> e.getName()))
                    .noneMatch(n -> n.startsWith("org/slf4j/") || n.startsWith("com/cronutils/"))
                    .contains("io/clockwork/cron/CronRule.class",
                            "META-INF/services/io.clockwork.schedule.RuleParser");
            assertThat(j.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
                    .isEqualTo("io.clockwork.cron");
        }
        String pom = Files.readString(Path.of(System.getProperty("clockwork.cron.pom", "target/none.xml")));
        String dependencies = pom.substring(pom.indexOf("<dependencies>"), pom.indexOf("</dependencies>"));
        assertThat(dependencies).contains("<artifactId>clockwork-core</artifactId>")
                .doesNotContain("cron-utils", "slf4j");
    }

    /** Runs in the child JVM: parses a rule that cron-utils evaluates with its logging class, prints two fires. */
    static final class Probe {
        public static void main(String[] args) {
            CronRule rule = CronRule.of("0,30 * * * *");
            Instant first = rule.nextAfter(Instant.EPOCH).orElseThrow();
            Instant second = ScheduleRule.parse(rule.spec()).nextAfter(first).orElseThrow();
            System.out.println(first + " " + second);
        }
    }
}
