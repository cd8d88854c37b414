package io.clockwork.benchmarks.queue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Reads a harness's Lua script from the class path, next to this class. Stateless; thread-safe. */
final class HarnessScript {

    private HarnessScript() {
    }

    /**
     * @param name the script's file name, e.g. {@code layouts.lua}
     * @return its text
     * @throws IllegalStateException if it is not on the class path
     */
    static String read(String name) {
        try (InputStream in = HarnessScript.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the class path in " + HarnessScript.class
                        .getPackageName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
