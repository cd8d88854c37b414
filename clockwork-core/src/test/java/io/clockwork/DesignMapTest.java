package io.clockwork;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package map that opens {@code docs/design.md} says where each class is: every type it names in a row is
 * declared in that row's module and package (a top-level type, or one nested in a file there), and every module of
 * the build has a row. A class that moves without the map, or a map row that names a class that is gone, fails here.
 */
class DesignMapTest {

    /** A row's first cell: an optional bold module, then an optional package. */
    private static final Pattern FIRST_CELL = Pattern.compile(
            "^(?:\\*\\*`(?<module>[\\w/.-]+)`\\*\\*)?\\s*(?:`(?<package>io\\.clockwork[\\w.]*)`)?\\s*$");
    /** A type's name in backticks: capitalised, optionally followed by a member or nested type. */
    private static final Pattern TYPE = Pattern.compile("`@?([A-Z][A-Za-z0-9]*)(?:[.#][A-Za-z0-9.()]*)?`");
    /** Types a row names as living in another module, with the module that declares them. */
    private static final Map<String, String> ELSEWHERE = Map.ofEntries(
            Map.entry("FaceStore", "clockwork-redis"),
            Map.entry("RedisQueueRegistry", "clockwork-redis"),
            Map.entry("RedisQueueBrowser", "clockwork-redis"),
            Map.entry("RedisSchedules", "clockwork-redis"),
            Map.entry("RedisClients", "clockwork-redis"),
            Map.entry("Codec", "clockwork-core"),
            Map.entry("ScheduleRule", "clockwork-core"),
            Map.entry("Schedules", "clockwork-core"),
            Map.entry("SharedDriver", "clockwork-core"),
            Map.entry("WorkerListener", "clockwork-core"));
    /** Names a row gives that are not Clockwork's: the JDK's, Spring's, Redis's. */
    private static final Set<String> NOT_OURS = Set.of("ServiceLoader", "Optional", "SmartLifecycle", "NOSCRIPT");

    private final Path root = repositoryRoot();

    @Test
    void everyTypeTheMapNamesIsDeclaredInTheModuleAndPackageOfItsRow() throws IOException {
        List<String> misplaced = new ArrayList<>();
        String module = null;
        int rows = 0;
        for (String line : mapRows()) {
            String[] cells = line.split("\\|");
            Matcher first = FIRST_CELL.matcher(cells[1].trim());
            if (!first.matches()) {
                continue;
            }
            if (first.group("module") != null) {
                module = first.group("module");
            }
            String pkg = first.group("package");
            if (pkg == null || module == null) {
                continue;
            }
            rows++;
            Matcher type = TYPE.matcher(cells[2]);
            while (type.find()) {
                String name = type.group(1);
                if (NOT_OURS.contains(name)) {
                    continue;
                }
                boolean found = declaredIn(module, pkg, name)
                        || ELSEWHERE.containsKey(name) && declaredAnywhere(ELSEWHERE.get(name), name);
                if (!found) {
                    misplaced.add(name + " (row " + module + " " + pkg + ")");
                }
            }
        }
        assertThat(rows).as("rows with a package").isGreaterThan(15);
        assertThat(misplaced).as("types design.md's map places where they are not").isEmpty();
    }

    @Test
    void everyModuleOfTheBuildHasARow() throws IOException {
        String pom = Files.readString(root.resolve("pom.xml"));
        String map = String.join("\n", mapRows());
        Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
        List<String> missing = new ArrayList<>();
        while (module.find()) {
            if (!map.contains("**`" + module.group(1) + "`**")) {
                missing.add(module.group(1));
            }
        }
        assertThat(missing).as("modules without a row in design.md's map").isEmpty();
    }

    private List<String> mapRows() throws IOException {
        List<String> lines = Files.readAllLines(root.resolve("docs/design.md"));
        int start = lines.indexOf("## Package map");
        assertThat(start).as("design.md has a package map").isGreaterThanOrEqualTo(0);
        List<String> rows = new ArrayList<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            String line = lines.get(i);
            if (line.startsWith("| ") && !line.startsWith("| ---") && !line.startsWith("| module")) {
                rows.add(line);
            }
        }
        return rows;
    }

    private boolean declaredIn(String module, String pkg, String name) {
        Path dir = root.resolve(module).resolve("src/main/java").resolve(pkg.replace('.', '/'));
        if (Files.isRegularFile(dir.resolve(name + ".java"))) {
            return true;
        }
        if (!Files.isDirectory(dir)) {
            return false;
        }
        Pattern nested = Pattern.compile("\\b(class|interface|record|enum|@interface)\\s+" + name + "\\b");
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".java")).anyMatch(f -> nested.matcher(read(f)).find());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean declaredAnywhere(String module, String name) {
        try (Stream<Path> files = Files.walk(root.resolve(module).resolve("src/main/java"))) {
            return files.anyMatch(f -> f.getFileName().toString().equals(name + ".java"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("docs/design.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a directory above the tests' with docs/design.md").isNotNull();
        return dir;
    }
}
