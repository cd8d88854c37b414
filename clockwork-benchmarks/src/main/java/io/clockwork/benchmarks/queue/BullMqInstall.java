package io.clockwork.benchmarks.queue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The BullMQ rival's Node program, ready to run: {@code node} and {@code npm} found on the {@code PATH}, the program
 * ({@code package.json}, {@code package-lock.json}, {@code rival.mjs}, packaged as resources of this module from
 * {@code src/main/node/bullmq-rival}) copied to a cache directory named after a hash of those files, and its
 * dependencies installed there once by {@code npm ci --prefer-offline} (exact versions from the lock file; no install
 * scripts run). The directory is {@code -Dclockwork.bullmq.dir} if set, else
 * {@code $XDG_CACHE_HOME/clockwork/bullmq-rival-<hash>} (default {@code ~/.cache}); it is filled in a temporary
 * sibling and renamed into place, so that concurrent runs never see half an install. Immutable and thread-safe once
 * built.
 */
final class BullMqInstall {

    /** The program's files, by name, as packaged. */
    static final List<String> FILES = List.of("package.json", "package-lock.json", "rival.mjs");
    /** The oldest Node major version the program runs on. */
    static final int MIN_NODE_MAJOR = 18;
    private static final String RESOURCES = "/io/clockwork/benchmarks/queue/bullmq-rival/";
    private static final long NPM_TIMEOUT_MINUTES = 10;
    private static final Pattern VERSION = Pattern.compile("^v?(\\d+)\\.");

    private static BullMqInstall installed;

    final Path node;
    final Path dir;
    final String nodeVersion;

    private BullMqInstall(Path node, Path dir, String nodeVersion) {
        this.node = node;
        this.dir = dir;
        this.nodeVersion = nodeVersion;
    }

    /** @return null if the rival can run here, else why not (no node or npm on the PATH, or too old a node) */
    static String unavailable() {
        Path node = onPath("node");
        if (node == null) {
            return "no `node` on the PATH (the BullMQ rival needs Node.js " + MIN_NODE_MAJOR + " or later and npm)";
        }
        if (onPath("npm") == null) {
            return "no `npm` on the PATH (the BullMQ rival installs its pinned packages with npm ci)";
        }
        String version = nodeVersion(node);
        if (major(version) < MIN_NODE_MAJOR) {
            return "node " + version + " at " + node + " is older than " + MIN_NODE_MAJOR;
        }
        return null;
    }

    /**
     * The program, installed on first use in this JVM.
     *
     * @return the installation
     * @throws IllegalStateException if node or npm is missing, or {@code npm ci} fails (the message says why)
     */
    static synchronized BullMqInstall get() {
        if (installed == null) {
            String why = unavailable();
            if (why != null) {
                throw new IllegalStateException(why);
            }
            Path node = onPath("node");
            installed = new BullMqInstall(node, install(), nodeVersion(node));
        }
        return installed;
    }

    /** @return the command that runs the program with these arguments */
    List<String> command(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(node.toString());
        command.add(dir.resolve("rival.mjs").toString());
        command.addAll(args);
        return command;
    }

    private static Path install() {
        Map<String, byte[]> files = resources();
        Path dir = target(hash(files));
        if (Files.isRegularFile(dir.resolve("node_modules/bullmq/package.json"))) {
            return dir;
        }
        Path tmp = dir.resolveSibling(dir.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-"
                + System.nanoTime());
        try {
            Files.createDirectories(tmp);
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                Files.write(tmp.resolve(f.getKey()), f.getValue());
            }
            npmCi(tmp);
            try {
                Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException anotherRunWon) {
                delete(tmp);
                if (!Files.isRegularFile(dir.resolve("node_modules/bullmq/package.json"))) {
                    throw new IllegalStateException(dir + " exists but holds no installed BullMQ rival: remove it");
                }
            }
            return dir;
        } catch (IOException e) {
            delete(tmp);
            throw new UncheckedIOException("cannot install the BullMQ rival in " + tmp, e);
        } catch (RuntimeException e) {
            delete(tmp);
            throw e;
        }
    }

    private static void npmCi(Path dir) throws IOException {
        Path log = dir.resolve("npm-ci.log");
        List<String> command = List.of(onPath("npm").toString(), "ci", "--prefer-offline", "--no-audit", "--no-fund",
                "--ignore-scripts");
        System.out.println("# BullMQ rival: " + String.join(" ", command) + " in " + dir);
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(NPM_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("npm ci did not finish in " + NPM_TIMEOUT_MINUTES + " min: "
                        + tail(log));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during npm ci", e);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("npm ci exited with " + p.exitValue() + " (the registry unreachable and "
                    + "the packages not in npm's cache?): " + tail(log));
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8).strip();
            return s.length() <= 2000 ? s : "..." + s.substring(s.length() - 2000);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static Map<String, byte[]> resources() {
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (String name : FILES) {
            try (InputStream in = BullMqInstall.class.getResourceAsStream(RESOURCES + name)) {
                if (in == null) {
                    throw new IllegalStateException("resource " + RESOURCES + name + " is not on the class path (build "
                            + "clockwork-benchmarks with Maven: it packages src/main/node/bullmq-rival)");
                }
                files.put(name, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    private static String hash(Map<String, byte[]> files) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            files.forEach((name, bytes) -> {
                sha.update(name.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(bytes);
            });
            return HexFormat.of().formatHex(sha.digest()).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path target(String hash) {
        String explicit = System.getProperty("clockwork.bullmq.dir");
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit).toAbsolutePath();
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path cache = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return cache.resolve("clockwork").resolve("bullmq-rival-" + hash).toAbsolutePath();
    }

    static Path onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String d : path.split(File.pathSeparator)) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private static String nodeVersion(Path node) {
        try {
            Process p = new ProcessBuilder(node.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "unknown (" + out + ")";
            }
            return out;
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown (interrupted)";
        }
    }

    private static int major(String version) {
        Matcher m = VERSION.matcher(version);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
