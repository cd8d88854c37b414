package io.clockwork.redis;

import io.lettuce.core.ScriptOutputType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts, one per queue operation, read from {@code .lua} resources next to this class, with the shared
 * helpers of {@code common.lua} prepended. Immutable and thread-safe.
 *
 * <p>The SHA-1 digest is computed here, so that {@code EVALSHA} can be sent without asking the server first; the
 * server learns the body from {@code SCRIPT LOAD} once, and again after {@code NOSCRIPT} (a restart or
 * {@code SCRIPT FLUSH} empties its cache).
 */
enum Script {
    OFFER("offer", ScriptOutputType.MULTI),
    CANCEL("cancel", ScriptOutputType.INTEGER),
    RESCHEDULE("reschedule", ScriptOutputType.MULTI),
    POLL("poll", ScriptOutputType.MULTI),
    ACK("ack", ScriptOutputType.MULTI),
    NACK("nack", ScriptOutputType.MULTI),
    KILL("kill", ScriptOutputType.INTEGER),
    STATS("stats", ScriptOutputType.MULTI),
    DEAD_LIST("dead_list", ScriptOutputType.MULTI),
    DEAD_REQUEUE("dead_requeue", ScriptOutputType.MULTI),
    DEAD_PURGE("dead_purge", ScriptOutputType.INTEGER),
    EXISTS("exists", ScriptOutputType.INTEGER),
    /** Takes only the signal key, so it gets no prelude. */
    SIGNAL("signal", ScriptOutputType.INTEGER, false),
    /** Takes the config key, so it gets no prelude. */
    OPEN("open", ScriptOutputType.MULTI, false);

    private final String fileName;
    private final ScriptOutputType output;
    private final byte[] body;
    private final String sha;

    Script(String name, ScriptOutputType output) {
        this(name, output, true);
    }

    /** @param prelude whether the script takes a partition's keys, and so gets the helpers of common.lua */
    Script(String name, ScriptOutputType output, boolean prelude) {
        this.fileName = name + ".lua";
        this.output = output;
        String text = prelude ? resource("common.lua") + resource(fileName) : resource(fileName);
        this.body = text.getBytes(StandardCharsets.UTF_8);
        this.sha = sha1(body);
    }

    /** @return the resource's file name, e.g. {@code poll.lua} */
    String fileName() {
        return fileName;
    }

    /** @return how Lettuce should read the reply */
    ScriptOutputType output() {
        return output;
    }

    /** @return the full script text sent by {@code SCRIPT LOAD} */
    byte[] body() {
        return body.clone();
    }

    /** @return the hex SHA-1 of {@link #body()}, as {@code EVALSHA} wants it */
    String sha() {
        return sha;
    }

    private static String resource(String file) {
        try (InputStream in = Script.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("missing resource io/clockwork/redis/" + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read io/clockwork/redis/" + file, e);
        }
    }

    private static String sha1(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
