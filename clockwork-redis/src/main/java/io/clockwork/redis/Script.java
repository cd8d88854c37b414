package io.clockwork.redis;

import io.clockwork.redis.KeyLayout.Key;
import io.lettuce.core.ScriptOutputType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lua scripts, one per queue operation, read from {@code .lua} resources next to this class, each assembled
 * with the shared helpers it includes. Immutable and thread-safe.
 *
 * <p>A script opens with a header (its KEYS, ARGV and reply), then names its keys ({@code local PENDING = KEYS[1]},
 * one line each, as {@link #keys()} lists them) and the helpers it uses on one line,
 * {@code -- include: clock, sweep}. A helper is {@code include/<name>.lua} and may name helpers of its own the
 * same way. The script's include line is replaced by the text of the helpers it names and of the helpers those
 * include (without their include lines), each once, every helper after the ones it includes (depth first). A script
 * so defines only the helpers it uses: each {@code local function} of a script is a closure created on every call,
 * so a helper the script never calls is not free. Assembly happens once, when this class loads; the assembled text
 * is what is hashed and loaded, so the server sees one self-contained script per operation. {@code ScriptTest}
 * checks that every script and helper includes exactly the helpers it uses and that no helper is defined twice.
 *
 * <p>The SHA-1 digest is computed here, so that {@code EVALSHA} can be sent without asking the server first; the
 * server learns the body from {@code SCRIPT LOAD} once, and again after {@code NOSCRIPT} (a restart or
 * {@code SCRIPT FLUSH} empties its cache).
 */
enum Script {
    OFFER("offer", ScriptOutputType.MULTI, Key.PENDING, Key.META, Key.SEQ, Key.LOST, Key.COUNTERS, Key.SIGNAL),
    CANCEL("cancel", ScriptOutputType.INTEGER, Key.PENDING, Key.INFLIGHT, Key.META, Key.LOST, Key.SIGNAL),
    RESCHEDULE("reschedule", ScriptOutputType.MULTI, Key.PENDING, Key.META, Key.SEQ, Key.LOST, Key.SIGNAL),
    POLL("poll", ScriptOutputType.MULTI,
            Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON, Key.SEQ, Key.LOST, Key.COUNTERS, Key.PAUSED, Key.SIGNAL),
    /** Only where the partition's scripts reach partition 0's slot (standalone, or partition 0 of a Cluster). */
    POLL_RATE("poll_rate", ScriptOutputType.MULTI, Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON, Key.SEQ,
            Key.LOST, Key.COUNTERS, Key.PAUSED, Key.RATE, Key.CONFIG, Key.SIGNAL),
    /** Always with partition 0's keys. */
    RATE("rate", ScriptOutputType.MULTI, Key.COUNTERS, Key.RATE, Key.CONFIG),
    ACK("ack", ScriptOutputType.MULTI, Key.PENDING, Key.INFLIGHT, Key.META, Key.SEQ, Key.COUNTERS, Key.SIGNAL),
    ACK_POLL("ack_poll", ScriptOutputType.MULTI,
            Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON, Key.SEQ, Key.LOST, Key.COUNTERS, Key.PAUSED, Key.SIGNAL),
    NACK("nack", ScriptOutputType.MULTI,
            Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON, Key.SEQ, Key.LOST, Key.COUNTERS, Key.SIGNAL),
    KILL("kill", ScriptOutputType.INTEGER,
            Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON, Key.SEQ, Key.LOST, Key.COUNTERS, Key.SIGNAL),
    EXTEND("extend", ScriptOutputType.INTEGER, Key.INFLIGHT),
    RELEASE("release", ScriptOutputType.MULTI, Key.PENDING, Key.INFLIGHT, Key.META, Key.SEQ, Key.LOST, Key.SIGNAL),
    STATS("stats", ScriptOutputType.MULTI,
            Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON, Key.SEQ, Key.LOST, Key.COUNTERS),
    DEAD_LIST("dead_list", ScriptOutputType.MULTI,
            Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON, Key.SEQ, Key.LOST, Key.COUNTERS),
    DEAD_REQUEUE("dead_requeue", ScriptOutputType.MULTI,
            Key.PENDING, Key.DEAD, Key.META, Key.REASON, Key.SEQ, Key.SIGNAL),
    DEAD_PURGE("dead_purge", ScriptOutputType.INTEGER, Key.DEAD, Key.META, Key.REASON),
    EXISTS("exists", ScriptOutputType.INTEGER, Key.SEQ),
    COLD_DROP("cold_drop", ScriptOutputType.MULTI, Key.PENDING),
    SIGNAL("signal", ScriptOutputType.INTEGER, Key.SIGNAL),
    PAUSE("pause", ScriptOutputType.MULTI, Key.PAUSED, Key.SIGNAL),
    ORDER("order", ScriptOutputType.INTEGER, Key.PENDING),
    GROUP("group", ScriptOutputType.INTEGER, Key.PENDING),
    GROUP_LIST("group_list", ScriptOutputType.MULTI, Key.PENDING),
    OPEN("open", ScriptOutputType.MULTI, Key.SEQ, Key.CONFIG),
    BROWSE("browse", ScriptOutputType.MULTI, Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON),
    BROWSE_FIND("browse_find", ScriptOutputType.MULTI, Key.PENDING, Key.INFLIGHT, Key.DEAD, Key.META, Key.REASON),
    BROWSE_HEAD("browse_head", ScriptOutputType.MULTI, Key.PENDING, Key.SEQ),
    FACE_OFFER("face_offer", ScriptOutputType.MULTI,
            Key.PENDING, Key.META, Key.SEQ, Key.ORDER, Key.VALUES, Key.SIGNAL),
    FACE_TAKE("face_take", ScriptOutputType.MULTI, Key.PENDING, Key.META, Key.LOST, Key.ORDER, Key.VALUES),
    FACE_DELAYED("face_delayed", ScriptOutputType.MULTI, Key.PENDING, Key.META, Key.LOST, Key.ORDER, Key.VALUES),
    FACE_FIND("face_find", ScriptOutputType.MULTI, Key.PENDING, Key.META, Key.LOST, Key.ORDER, Key.VALUES),
    FACE_READ("face_read", ScriptOutputType.MULTI, Key.PENDING, Key.META, Key.LOST, Key.ORDER),
    FACE_COUNT("face_count", ScriptOutputType.MULTI, Key.PENDING),
    FACE_CLEAR("face_clear", ScriptOutputType.MULTI, Key.PENDING, Key.META, Key.LOST, Key.ORDER, Key.VALUES),
    FACE_MOVE("face_move", ScriptOutputType.MULTI, Key.PENDING, Key.META, Key.LOST, Key.ORDER, Key.VALUES),
    MIGRATE_REDISSON("migrate_redisson", ScriptOutputType.MULTI,
            Key.PENDING, Key.META, Key.SEQ, Key.ORDER, Key.VALUES, Key.SIGNAL),
    SCHED_GET("sched_get", ScriptOutputType.MULTI, Key.SCHED_DEF, Key.SCHED_MSG, Key.SCHED_STATE),
    SCHED_SCAN("sched_scan", ScriptOutputType.MULTI, Key.SCHED_DEF, Key.SCHED_STATE),
    SCHED_DUE("sched_due", ScriptOutputType.MULTI, Key.SCHED_DEF, Key.SCHED_STATE, Key.SCHED_DUE),
    SCHED_WRITE("sched_write", ScriptOutputType.INTEGER, Key.SCHED_DEF, Key.SCHED_MSG, Key.SCHED_STATE, Key.SCHED_DUE),
    SCHED_FIRE("sched_fire", ScriptOutputType.MULTI,
            Key.PENDING, Key.META, Key.SEQ, Key.COUNTERS, Key.SCHED_MSG, Key.SCHED_STATE, Key.SCHED_DUE);

    /**
     * The line naming the helpers a script or helper uses, e.g. {@code -- include: member, meta}. A constant string,
     * because the constructors run before the enum's other static fields are set.
     */
    private static final String INCLUDE = "(?m)^-- include:(.*)$";

    private final String fileName;
    private final ScriptOutputType output;
    private final List<Key> keys;
    private final byte[] body;
    private final String sha;

    Script(String name, ScriptOutputType output, Key... keys) {
        this.fileName = name + ".lua";
        this.output = output;
        this.keys = List.of(keys);
        this.body = assemble(fileName).getBytes(StandardCharsets.UTF_8);
        this.sha = sha1(body);
    }

    /** @return the resource's file name, e.g. {@code poll.lua} */
    String fileName() {
        return fileName;
    }

    /**
     * @return the keys the script takes, KEYS[1] on, in {@link Key}'s order, as its header lists them: exactly the
     *         keys its code (with the helpers it includes) names. {@code face_move.lua} takes the target queue's keys
     *         after its own, and {@code migrate_redisson.lua} Redisson's keys, from their callers.
     */
    List<Key> keys() {
        return keys;
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

    /**
     * @param file a script's resource name, e.g. {@code poll.lua}
     * @return its text with its include line replaced by the helpers it needs, in dependency order
     */
    static String assemble(String file) {
        String text = resource(file);
        Matcher m = Pattern.compile(INCLUDE).matcher(text);
        if (!m.find()) {
            return text;
        }
        return text.substring(0, m.start()) + String.join("", helpers(text).values()) + text.substring(m.end());
    }

    /**
     * @param text a script's text
     * @return the helpers it needs, each once, every helper after the ones it includes: name to text without its
     *         include line
     */
    static Map<String, String> helpers(String text) {
        Map<String, String> helpers = new LinkedHashMap<>();
        for (String name : includes(text)) {
            include(name, helpers, new HashSet<>());
        }
        return helpers;
    }

    /**
     * @param text a script's or helper's text
     * @return the helpers its include line names, in order; empty without one
     * @throws IllegalStateException if it has more than one include line
     */
    static List<String> includes(String text) {
        Matcher m = Pattern.compile(INCLUDE).matcher(text);
        List<String> names = new ArrayList<>();
        if (m.find()) {
            for (String name : m.group(1).split(",")) {
                names.add(name.strip());
            }
            if (m.find()) {
                throw new IllegalStateException("more than one include line: " + m.group());
            }
        }
        return names;
    }

    /** Adds a helper, without its include line, to {@code done} after the helpers it includes, unless it is there. */
    private static void include(String name, Map<String, String> done, Set<String> visiting) {
        if (done.containsKey(name)) {
            return;
        }
        if (!name.matches("[a-z_]+") || !visiting.add(name)) {
            throw new IllegalStateException("bad helper name or include cycle at '" + name + "'");
        }
        String text = resource("include/" + name + ".lua");
        for (String dependency : includes(text)) {
            include(dependency, done, visiting);
        }
        done.put(name, Pattern.compile(INCLUDE + "\n").matcher(text).replaceFirst(""));
    }

    /**
     * @param file a resource name relative to this class, e.g. {@code poll.lua} or {@code include/clock.lua}
     * @return its text
     */
    static String resource(String file) {
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
