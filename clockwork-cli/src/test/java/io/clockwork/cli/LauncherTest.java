package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code clockwork} launcher script the build writes to the build directory, run as a user runs it: found on
 * {@code PATH} through a symbolic link, in a real child process.
 *
 * <p>Tests run before {@code package} writes clockwork.jar, so each test puts a copy of the script beside a small
 * stand-in jar whose manifest names the CLI's main class and this test run's class path.
 */
class LauncherTest {

    @TempDir
    Path dir;

    private Path script;

    @BeforeEach
    void findScript() throws URISyntaxException {
        assumeTrue(Files.isExecutable(Path.of("/bin/sh")), "the launcher is a POSIX sh script");
        Path testClasses = Path.of(LauncherTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        script = testClasses.getParent().resolve("clockwork");
    }

    @Test
    void theBuildWritesAnExecutableLauncherIntoTheBuildDirectory() {
        assertThat(script).exists();
        assertThat(Files.isExecutable(script)).isTrue();
    }

    @Test
    void theCommandRunsAsWrittenFromPathThroughASymlink() throws Exception {
        Path bin = install();
        Run r = run(bin, Map.of(), "clockwork", "--version");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("clockwork ");
    }

    @Test
    void theLauncherPassesJavaOptsArgumentsAndTheEnvironment() throws Exception {
        Path bin = install();
        int port = Cli.closedPort();
        Run r = run(bin, Map.of("JAVA_OPTS", "-Dclockwork.debug=true -Xmx128m",
                RedisOptions.ENV, "redis://127.0.0.1:" + port), "clockwork", "queue", "stats", "--queue", "two words");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("cannot reach Redis at 127.0.0.1:" + port) // the URI from the environment
                .contains("at io.clockwork.cli."); // the stack trace that -Dclockwork.debug=true adds
    }

    @Test
    void aMissingJarIsOneLineSayingHowToBuildIt() throws Exception {
        Path alone = Files.createDirectories(dir.resolve("alone"));
        Files.copy(script, alone.resolve("clockwork"));
        Run r = run(alone, Map.of(), "clockwork", "--help");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().strip()).startsWith("clockwork: ").endsWith("clockwork.jar not found; build it with: "
                + "mvn -B -q -pl clockwork-cli -am package -DskipTests").doesNotContain("\n");
    }

    /** @return a bin directory holding a symbolic link to a copy of the launcher that sits beside its jar */
    private Path install() throws IOException {
        Path app = Files.createDirectories(dir.resolve("app"));
        Files.copy(script, app.resolve("clockwork"));
        standInJar(app.resolve("clockwork.jar"));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("clockwork"), app.resolve("clockwork"));
        return bin;
    }

    /** Writes a jar with no classes whose manifest runs the CLI from this test run's class path. */
    private static void standInJar(Path jar) throws IOException {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.put(Attributes.Name.MAIN_CLASS, ClockworkCli.class.getName());
        main.put(Attributes.Name.CLASS_PATH, Arrays.stream(classPath.split(File.pathSeparator))
                .filter(s -> !s.isBlank())
                .map(s -> Path.of(s).toAbsolutePath().toUri().toString())
                .collect(Collectors.joining(" ")));
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            j.flush();
        }
    }

    private record Run(int exit, String out, String err) {
    }

    /** Runs a shell command line with {@code bin} first on PATH, as a user's shell would. */
    private Run run(Path bin, Map<String, String> env, String... command) throws Exception {
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", "\"$@\"", "sh"));
        argv.addAll(List.of(command));
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().remove(RedisOptions.ENV);
        pb.environment().remove("JAVA_OPTS");
        pb.environment().put("PATH", bin + File.pathSeparator + System.getenv().getOrDefault("PATH", ""));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("clockwork did not finish within 60 s");
        }
        try {
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
