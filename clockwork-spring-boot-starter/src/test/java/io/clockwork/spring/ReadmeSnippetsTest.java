package io.clockwork.spring;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.DelayedQueue;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ```java} block of the repository's {@code README.md} and of the user guide ({@code docs/guide/*.md})
 * compiles as printed, against this module's test classpath (every Clockwork library, Spring Boot, Spring Security,
 * Micrometer and OpenTelemetry), with {@code javax.tools}. Each snippet is its own compilation unit; a failure names
 * the file and its line.
 *
 * <p>The convention a snippet follows, so that it reads as code a user writes inside their own method or class:
 * <ul>
 *   <li>Its leading {@code import} lines are the compilation unit's imports. Beside them, the types a reader's IDE
 *       imports without being told are imported on demand: {@code java.time}, {@code java.util},
 *       {@code java.util.concurrent}, every public Clockwork package, and the few Spring, Micrometer and
 *       OpenTelemetry packages the snippets name ({@link #IMPLICIT_IMPORTS}).</li>
 *   <li>What it takes from the prose around it is declared in a comment line {@code // given: decl; decl; ...}
 *       anywhere in the snippet, in the declarations' Java form: a field ({@code DelayedQueue<Order> queue}), a
 *       method without body ({@code void handle(String order)}) or a type with its body
 *       ({@code record Order(String id) { }}). They become members of the class around the snippet.</li>
 *   <li>The rest is statements, the body of a method that may be interrupted ({@code throws InterruptedException},
 *       as a blocking poll or take is), and nothing else: any other checked exception must be handled or declared
 *       by the snippet itself. When its first line of code is an annotation or declares a method, the rest is a
 *       class body instead (a Spring component, a method with its own {@code throws}).</li>
 * </ul>
 * A {@code ...} that stands for the user's code is written as a comment, so a snippet is whole Java.
 */
class ReadmeSnippetsTest {

    /** What the class around a snippet imports on demand. */
    static final List<String> IMPLICIT_IMPORTS = List.of(
            "java.time", "java.util", "java.util.concurrent",
            "io.clockwork.queue", "io.clockwork.worker", "io.clockwork.inprocess", "io.clockwork.timer", "io.clockwork.time", "io.clockwork.schedule",
            "io.clockwork.kafka", "io.clockwork.zookeeper", "io.clockwork.storm", "io.clockwork.redisson",
            "io.clockwork.redis", "io.clockwork.json", "io.clockwork.cron", "io.clockwork.micrometer",
            "io.clockwork.opentelemetry", "io.clockwork.spring", "io.clockwork.dashboard",
            "io.micrometer.core.instrument", "io.opentelemetry.api", "org.springframework.stereotype",
            "org.springframework.security.config", "org.springframework.security.config.annotation.web.builders");

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(static\\s+)?[\\w.]+(\\.\\*)?\\s*;.*$");
    private static final Pattern METHOD = Pattern.compile(
            "^(?!(?:record|class|interface|enum|new|return|throw|else)\\b)"
                    + "(?:(?:public|protected|private|static|final|abstract|synchronized|default)\\s+)*"
                    + "(?:<[^>]+>\\s+)?[\\w.<>\\[\\], ?]+\\s+\\w+\\s*\\([^;]*\\)\\s*(?:throws\\s+[\\w.,\\s]+)?\\{.*$");
    private static final String GIVEN = "// given:";

    /** A {@code ```java} block: its file (relative to the repository), the line of its first line, and its lines. */
    record Snippet(String file, int line, List<String> lines) {
        Snippet(int line, List<String> lines) {
            this("README.md", line, lines);
        }

        String name() {
            return file + " line " + line;
        }

        /** A class name unique over every document: the file's name and the line. */
        String className() {
            return "Snippet_" + file.replaceAll("\\.md$", "").replaceAll("[^A-Za-z0-9]", "_") + "_at_line_" + line;
        }
    }

    /** The compiled form of a snippet: the generated source and, per generated line, the file's line (0: none). */
    record Unit(Snippet snippet, String className, String source, int[] readmeLine) {
    }

    private static Map<Snippet, List<String>> errors;

    static Path readme() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            Path candidate = p.resolve("README.md");
            if (Files.exists(candidate) && Files.exists(p.resolve("clockwork-core"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no README.md beside clockwork-core above " + here);
    }

    /** The README and the user guide's pages, README first, the pages in name order. */
    static List<Path> documents() throws IOException {
        Path root = readme().getParent();
        List<Path> out = new ArrayList<>(List.of(readme()));
        Path guide = root.resolve("docs").resolve("guide");
        if (Files.isDirectory(guide)) {
            try (Stream<Path> pages = Files.list(guide)) {
                pages.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(out::add);
            }
        }
        return out;
    }

    /** Every snippet of every document. */
    static List<Snippet> allSnippets() throws IOException {
        Path root = readme().getParent();
        List<Snippet> out = new ArrayList<>();
        for (Path doc : documents()) {
            String file = root.relativize(doc).toString().replace(File.separatorChar, '/');
            out.addAll(snippets(file, Files.readAllLines(doc, StandardCharsets.UTF_8)));
        }
        return out;
    }

    static List<Snippet> snippets(List<String> readme) {
        return snippets("README.md", readme);
    }

    static List<Snippet> snippets(String file, List<String> readme) {
        List<Snippet> out = new ArrayList<>();
        for (int i = 0; i < readme.size(); i++) {
            if (readme.get(i).strip().equals("```java")) {
                int start = i + 1;
                int end = start;
                while (end < readme.size() && !readme.get(end).strip().equals("```")) {
                    end++;
                }
                if (end == readme.size()) {
                    throw new IllegalStateException(file + " line " + (i + 1) + ": ```java block never closed");
                }
                out.add(new Snippet(file, start + 1, List.copyOf(readme.subList(start, end))));
                i = end;
            }
        }
        return out;
    }

    /** Splits a given line's declarations at the semicolons outside brackets. */
    static List<String> declarations(String given) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (char c : given.toCharArray()) {
            if (c == '{' || c == '(' || c == '<') {
                depth++;
            } else if (c == '}' || c == ')' || c == '>') {
                depth--;
            }
            if (c == ';' && depth == 0) {
                out.add(current.toString().strip());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        out.add(current.toString().strip());
        out.removeIf(String::isEmpty);
        return out;
    }

    static Unit unit(Snippet s) {
        String className = s.className();
        List<String> lines = new ArrayList<>();
        List<Integer> map = new ArrayList<>();
        List<String> lead = new ArrayList<>();
        List<Integer> leadLines = new ArrayList<>();
        int k = 0;
        for (; k < s.lines().size(); k++) {
            String t = s.lines().get(k).strip();
            if (IMPORT.matcher(t).matches()) {
                lines.add(s.lines().get(k));
                map.add(s.line() + k);
            } else if (!t.isEmpty() && !t.startsWith("//")) {
                break;
            }
        }
        for (String pkg : IMPLICIT_IMPORTS) {
            lines.add("import " + pkg + ".*;");
            map.add(0);
        }
        lines.add("abstract class " + className + " {");
        map.add(0);
        for (int i = 0; i < s.lines().size(); i++) {
            String t = s.lines().get(i).strip();
            if (t.startsWith(GIVEN)) {
                for (String d : declarations(t.substring(GIVEN.length()))) {
                    lines.add("    " + (d.contains("{") ? d : d.contains("(") ? "abstract " + d + ";" : d + ";"));
                    map.add(s.line() + i);
                }
            }
        }
        String firstCode = k < s.lines().size() ? s.lines().get(k).strip() : "";
        boolean classBody = firstCode.startsWith("@") || METHOD.matcher(firstCode).matches();
        if (!classBody) {
            lines.add("    void snippet() throws InterruptedException {");
            map.add(0);
        }
        for (int i = k; i < s.lines().size(); i++) {
            lines.add(s.lines().get(i));
            map.add(s.line() + i);
        }
        if (!classBody) {
            lines.add("    }");
            map.add(0);
        }
        lines.add("}");
        map.add(0);
        return new Unit(s, className, String.join("\n", lines) + "\n", map.stream().mapToInt(Integer::intValue)
                .toArray());
    }

    static String classpath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    /** Compiles every snippet in one javac run and returns each one's errors, located by file and line. */
    static synchronized Map<Snippet, List<String>> compileAll() throws IOException {
        if (errors != null) {
            return errors;
        }
        List<Snippet> snippets = allSnippets();
        Map<URI, Unit> units = new LinkedHashMap<>();
        List<JavaFileObject> sources = new ArrayList<>();
        for (Snippet s : snippets) {
            Unit u = unit(s);
            JavaFileObject source = new SimpleJavaFileObject(URI.create("string:///" + u.className() + ".java"),
                    JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return u.source();
                }
            };
            units.put(source.toUri(), u);
            sources.add(source);
        }
        Map<Snippet, List<String>> found = new LinkedHashMap<>();
        snippets.forEach(s -> found.put(s, new ArrayList<>()));
        // javac stops before attribution when any unit fails to parse, so the units without errors go again until a
        // run reports nothing new: each unit is then checked in full, in as few runs as the errors allow.
        List<JavaFileObject> batch = sources;
        while (!batch.isEmpty()) {
            Map<Snippet, List<String>> run = compile(batch, units);
            run.forEach((snippet, errs) -> found.get(snippet).addAll(errs));
            if (run.isEmpty()) {
                break;
            }
            batch = batch.stream().filter(f -> !run.containsKey(units.get(f.toUri()).snippet())).toList();
        }
        errors = found;
        return found;
    }

    /** One javac run over {@code batch}; returns the errors of the units that have any. */
    private static Map<Snippet, List<String>> compile(List<JavaFileObject> batch, Map<URI, Unit> units)
            throws IOException {
        Path out = Files.createTempDirectory("readme-snippets");
        try {
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            List<String> options = List.of("--release", "17", "-proc:none", "-Xlint:none", "-Xmaxerrs", "10000",
                    "-classpath", classpath(), "-d", out.toString());
            javac.getTask(null, null, diagnostics, options, null, batch).call();
            Map<Snippet, List<String>> found = new LinkedHashMap<>();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() != Diagnostic.Kind.ERROR) {
                    continue;
                }
                Unit u = d.getSource() == null ? null : units.get(d.getSource().toUri());
                if (u == null) {
                    throw new AssertionError("javac: " + d.getMessage(null));
                }
                int generated = (int) d.getLineNumber();
                int line = generated >= 1 && generated <= u.readmeLine().length ? u.readmeLine()[generated - 1] : 0;
                String where = line > 0 ? u.snippet().file() + " line " + line : u.snippet().name() + " (generated line "
                        + generated + " of\n" + u.source() + ")";
                found.computeIfAbsent(u.snippet(), k -> new ArrayList<>()).add(where + ": " + d.getMessage(null));
            }
            return found;
        } finally {
            deleteTree(out);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    @Test
    void readmeAndGuideHaveTheJavaSnippetsTheyShow() throws IOException {
        List<Snippet> readme = snippets(Files.readAllLines(readme(), StandardCharsets.UTF_8));
        assertThat(readme).as("```java blocks in README.md: one per use at least").hasSizeGreaterThanOrEqualTo(4);
        assertThat(documents()).as("the user guide's pages").hasSizeGreaterThan(10);
        assertThat(allSnippets()).as("```java blocks in README.md and docs/guide").hasSizeGreaterThanOrEqualTo(10);
        assertThat(classpath().split(File.pathSeparator)).as("the test classpath javac compiles against")
                .anyMatch(e -> e.contains("clockwork-core")).anyMatch(e -> e.contains("clockwork-cron"))
                .anyMatch(e -> e.contains("spring-security-config"));
    }

    @Test
    void conventionSplitsGivenDeclarationsAndChoosesTheForm() {
        assertThat(declarations(" DelayedQueue<Order> queue; record Order(String id) { }; void handle(String v)"))
                .containsExactly("DelayedQueue<Order> queue", "record Order(String id) { }", "void handle(String v)");
        Unit statements = unit(new Snippet(7, List.of("import a.B;", "// given: int n; void f(int x)", "f(n);")));
        assertThat(statements.source()).contains("import a.B;\n").contains("    int n;\n")
                .contains("    abstract void f(int x);\n").contains("void snippet() throws InterruptedException {");
        assertThat(statements.readmeLine()[0]).isEqualTo(7);
        Unit members = unit(new Snippet(3, List.of("@Component", "class A { }")));
        assertThat(members.source()).doesNotContain("void snippet()");
        Unit method = unit(new Snippet(3, List.of("String take() throws Exception {", "    return null;", "}")));
        assertThat(method.source()).doesNotContain("void snippet()");
        Unit localRecord = unit(new Snippet(3, List.of("record R(int x) { }", "new R(1);")));
        assertThat(localRecord.source()).as("a local record opens statements").contains("void snippet()");
    }

    /**
     * The install command of the README's "Using it in your build" installs exactly the library modules (every module
     * of the root {@code pom.xml} that builds -sources and -javadoc jars) and the table of artifacts below it names
     * each of them once.
     */
    @Test
    void installCommandInstallsEveryLibraryModuleTheDependencyListNames() throws IOException {
        Path root = readme().getParent();
        List<String> readme = Files.readAllLines(readme(), StandardCharsets.UTF_8);
        int section = readme.indexOf("## Using it in your build");
        assertThat(section).as("the README's section 'Using it in your build'").isNotNegative();
        int next = section + 1;
        while (next < readme.size() && !readme.get(next).startsWith("## ")) {
            next++;
        }
        List<String> text = readme.subList(section, next);
        Pattern install = Pattern.compile("mvn [^`]*-pl ([\\w,/-]+) -am install -DskipTests");
        List<String> installed = text.stream().map(install::matcher).filter(java.util.regex.Matcher::find)
                .flatMap(m -> Stream.of(m.group(1).split(","))).toList();
        assertThat(installed).as("modules of the install command").isNotEmpty().doesNotHaveDuplicates();

        Pattern artifact = Pattern.compile("^\\|\\s*`(clockwork-[\\w-]+)`\\s*\\|");
        List<String> listed = text.stream().map(artifact::matcher).filter(java.util.regex.Matcher::find)
                .map(m -> m.group(1)).toList();

        String parent = Files.readString(root.resolve("pom.xml"), StandardCharsets.UTF_8);
        List<String> libraries = new ArrayList<>();
        java.util.regex.Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
        while (module.find()) {
            String pom = Files.readString(root.resolve(module.group(1)).resolve("pom.xml"), StandardCharsets.UTF_8);
            if (!pom.contains("<maven.javadoc.skip>true</maven.javadoc.skip>")) {
                libraries.add(Path.of(module.group(1)).getFileName().toString());
            }
        }
        assertThat(libraries).contains("clockwork-core", "clockwork-spring-boot-starter");
        assertThat(installed).as("the install command's -pl list").containsExactlyInAnyOrderElementsOf(libraries);
        assertThat(listed).as("the table of artifacts").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(libraries);
    }

    /**
     * The delayed-queue snippet runs on the in-process queue (the same contract, as its comment says) and its batch
     * poll delivers the batch it offered: the poll waits longer than the batch's delay.
     */
    @Test
    @SuppressWarnings("unchecked")
    void queueSnippetDeliversTheBatchItOffers() throws Exception {
        String redis = "RedisDelayedQueue.builder(\"redis://127.0.0.1:6379\", \"orders\", Codec.string())";
        Snippet snippet = allSnippets().stream()
                .filter(s -> String.join("\n", s.lines()).contains("queue.offerAll(")
                        && String.join("\n", s.lines()).contains(redis))
                .findFirst().orElseThrow(() -> new AssertionError("no snippet offers a batch to " + redis));
        List<String> inProcess = snippet.lines().stream()
                .map(l -> l.replace(redis, "InMemoryDelayedQueue.<String>builder()")).toList();
        Unit u = unit(new Snippet(snippet.file(), snippet.line(), inProcess));
        String runner = "public class QueueSnippetRun extends " + u.className() + " {\n"
                + "    public final java.util.List<String> handled = new java.util.ArrayList<>();\n"
                + "    @Override void handle(String order) { handled.add(order); }\n"
                + "    public void run() throws InterruptedException { snippet(); }\n"
                + "}\n";
        Path out = Files.createTempDirectory("readme-queue-snippet");
        try {
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            boolean compiled = ToolProvider.getSystemJavaCompiler().getTask(null, null, diagnostics,
                    List.of("--release", "17", "-proc:none", "-classpath", classpath(), "-d", out.toString()), null,
                    List.of(source(u.className(), u.source()), source("QueueSnippetRun", runner))).call();
            assertThat(compiled).as(diagnostics.getDiagnostics().toString()).isTrue();
            try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {out.toUri().toURL()},
                    getClass().getClassLoader())) {
                Object run = loader.loadClass("QueueSnippetRun").getConstructor().newInstance();
                run.getClass().getMethod("run").invoke(run);
                Object handled = run.getClass().getField("handled").get(run);
                assertThat((List<Object>) handled).as("what the snippet at " + snippet.name() + " handled")
                        .containsExactly("a", "b", "c");
            }
        } finally {
            deleteTree(out);
        }
    }

    private static JavaFileObject source(String className, String text) {
        return new SimpleJavaFileObject(URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return text;
            }
        };
    }

    @TestFactory
    Stream<DynamicTest> everyJavaSnippetCompilesAsPrinted() throws IOException {
        return compileAll().entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey().name(), () ->
                assertThat(e.getValue()).as("javac errors of the snippet at " + e.getKey().name() + ":\n"
                        + e.getValue().stream().collect(Collectors.joining("\n"))).isEmpty()));
    }
}
