package io.clockwork.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.function.Function;
import picocli.CommandLine.ParameterException;

/**
 * Reads the first line of a file that holds a secret (a Redis URI, a dashboard password); stateless and thread-safe.
 * It refuses a file that its group or other users can read: such a file shows the secret to them, as the command
 * line would.
 */
final class SecretFile {

    private SecretFile() {
    }

    /**
     * @param path     the file
     * @param option   the option that named it, e.g. {@code --redis-file}
     * @param expected what its first line holds, e.g. {@code a Redis URI}
     * @param usage    makes the bad-usage error of the command
     * @return the first line, trimmed and not empty
     * @throws ParameterException if the file is missing, unreadable, readable by its group or others, not UTF-8 or
     *                            empty
     */
    static String firstLine(Path path, String option, String expected, Function<String, ParameterException> usage) {
        String where = option + " " + path;
        String first;
        try {
            if (readableByOthers(path)) {
                throw usage.apply(where + ": other users can read the file, which holds a secret; run chmod 600 "
                        + path);
            }
            try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                first = in.readLine();
            }
        } catch (NoSuchFileException e) {
            throw usage.apply(where + ": no such file");
        } catch (AccessDeniedException e) {
            throw usage.apply(where + ": permission denied");
        } catch (CharacterCodingException e) {
            throw usage.apply(where + ": not UTF-8 text");
        } catch (IOException e) {
            throw usage.apply(where + ": cannot read it (" + e.getMessage() + ")");
        }
        if (first == null || first.isBlank()) {
            throw usage.apply(where + ": the file's first line is empty (expected " + expected + " there)");
        }
        return first.strip();
    }

    private static boolean readableByOthers(Path path) throws IOException {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
            return perms.contains(PosixFilePermission.OTHERS_READ) || perms.contains(PosixFilePermission.GROUP_READ);
        } catch (UnsupportedOperationException notPosix) {
            return false;
        }
    }
}
