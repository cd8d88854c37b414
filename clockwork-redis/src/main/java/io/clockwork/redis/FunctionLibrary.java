package io.clockwork.redis;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The queue's scripts as one Redis Functions library (Redis 7.0+): {@code FUNCTION LOAD} once per server, then
 * {@code FCALL} per operation. Built from the same {@code .lua} sources as {@link Script}'s {@code EVALSHA} bodies,
 * so both forms run the same code. Immutable and thread-safe.
 *
 * <p>Why: a script run by {@code EVALSHA} executes its whole text on every call, so every helper it includes is
 * created anew each time (a closure per {@code local function}, and its constants); a library's top level runs once, at
 * load. The library declares, at its top level, {@code KEYS}, {@code ARGV} and every key name the scripts use
 * ({@code PENDING}, {@code META}, ...) as shared locals, then every helper once, then registers one function per
 * script. Each function first sets {@code KEYS}, {@code ARGV} and its own key names from its arguments, runs the
 * per-call part of each helper it includes, then the script's body. The helpers see the call's values through those
 * shared locals: Redis runs one function at a time, so one call's values never meet another's. A helper's per-call part
 * is the block between the lines <code>-- per call &#123;</code> and <code>-- per call &#125;</code>: state that must
 * start fresh each call (a count of this call's losses) or that derives from the call's keys and arguments (key names
 * built from {@code PENDING}, settings read from {@code ARGV[1]}). In the {@code EVALSHA} form those lines simply run
 * in place.
 *
 * <p>The library's name and its functions' names carry a digest of every script's body, so clients of different
 * versions on one server each load and call their own library, and a server that holds a client's library holds
 * exactly that client's code. Functions are part of the dataset: replicated, persisted, and kept by a replica
 * promoted in a failover; {@code FUNCTION FLUSH} or a server without the library answers "Function not found", and
 * the client loads it again ({@link ScriptRunner}).
 *
 * <p>Scripts that only remove, move or read data run even when the server is at {@code maxmemory} ({@code allow-oom}),
 * so that a full server can still be drained; those that add data (offers, schedules' writes) are refused whole
 * with an {@code OOM} error instead of failing half-way.
 */
final class FunctionLibrary {

    private static final Pattern KEY_LINE = Pattern.compile("(?m)^local (\\w+) = KEYS\\[(\\d+)\\]$\\n?");
    private static final Pattern HEADER = Pattern.compile("\\A--\\[\\[.*?\\]\\]\\n", Pattern.DOTALL);
    private static final Pattern INCLUDE_LINE = Pattern.compile("(?m)^-- include:.*$\\n?");
    private static final Pattern PER_CALL = Pattern.compile("(?ms)^-- per call \\{$\\n(.*?)^-- per call \\}$\\n?");
    private static final Pattern LOCAL = Pattern.compile("^local ([\\w, ]+?)( = .*)?$");

    /** The scripts that add data, refused whole at {@code maxmemory}; every other script may run then. */
    private static final Set<Script> ADD_DATA = EnumSet.of(Script.OFFER, Script.RESCHEDULE, Script.DEAD_REQUEUE,
            Script.OPEN, Script.GROUP, Script.FACE_OFFER, Script.FACE_MOVE, Script.MIGRATE_REDISSON, Script.SCHED_WRITE,
            Script.SCHED_FIRE);

    /** The first 12 hex digits of the SHA-1 of every script's body, in {@link Script} order. */
    static final String VERSION = version();
    /** The library's name on the server. */
    static final String NAME = "clockwork_" + VERSION;

    /** Each script's function name, by {@link Script#ordinal()}: named once, not on every call. */
    private static final String[] FUNCTION_NAMES = names();
    private static final String TEXT = build();

    private FunctionLibrary() {
    }

    /** @return the library's source, as {@code FUNCTION LOAD} takes it */
    static String text() {
        return TEXT;
    }

    /**
     * @param script a script
     * @return the name of its function in this library
     */
    static String functionName(Script script) {
        return FUNCTION_NAMES[script.ordinal()];
    }

    private static String[] names() {
        String[] names = new String[Script.values().length];
        for (Script s : Script.values()) {
            names[s.ordinal()] = "cw_" + VERSION + "_" + s.name().toLowerCase(Locale.ROOT);
        }
        return names;
    }

    private static String build() {
        StringBuilder top = new StringBuilder("#!lua name=" + NAME + "\n");
        Set<String> keyNames = new LinkedHashSet<>();
        Map<String, String> helpers = new LinkedHashMap<>(); // every helper once, in dependency order
        Map<Script, Map<String, String>> used = new LinkedHashMap<>();
        for (Script s : Script.values()) {
            String text = Script.resource(s.fileName());
            Matcher k = KEY_LINE.matcher(text);
            while (k.find()) {
                keyNames.add(k.group(1));
            }
            Map<String, String> own = Script.helpers(text);
            used.put(s, own);
            own.forEach(helpers::putIfAbsent);
        }
        top.append("local KEYS, ARGV\n");
        top.append("local ").append(String.join(", ", keyNames)).append("\n");
        Map<String, String> perCall = new LinkedHashMap<>();
        Set<String> declared = new LinkedHashSet<>(keyNames);
        for (Map.Entry<String, String> h : helpers.entrySet()) {
            top.append(loadPart(h.getKey(), h.getValue(), perCall, declared));
        }
        for (Script s : Script.values()) {
            top.append(register(s, used.get(s), perCall));
        }
        return top.toString();
    }

    /**
     * A helper's text for the library's top level: its per-call block replaced by declarations of the names it
     * sets, the statements that set them collected in {@code perCall} under the helper's name.
     */
    private static String loadPart(String name, String text, Map<String, String> perCall, Set<String> declared) {
        Matcher m = PER_CALL.matcher(text);
        if (!m.find()) {
            checkLocals(name, text, declared);
            return text;
        }
        StringBuilder declarations = new StringBuilder();
        StringBuilder statements = new StringBuilder();
        for (String line : m.group(1).split("\n")) {
            Matcher local = LOCAL.matcher(line);
            if (local.matches()) {
                declarations.append("local ").append(local.group(1)).append('\n');
                if (local.group(2) != null) {
                    statements.append(local.group(1)).append(local.group(2)).append('\n');
                } else {
                    statements.append(local.group(1)).append(" = nil\n");
                }
            } else {
                statements.append(line).append('\n');
            }
        }
        perCall.put(name, statements.toString());
        String result = text.substring(0, m.start()) + declarations + text.substring(m.end());
        checkLocals(name, result, declared);
        return result;
    }

    /** Fails if a helper's top-level local names one that another helper or a key already declared. */
    private static void checkLocals(String helper, String text, Set<String> declared) {
        Matcher m = Pattern.compile("(?m)^local (?:function )?([\\w, ]+?)(?: = |\\(|$)").matcher(text);
        while (m.find()) {
            for (String n : m.group(1).split(",")) {
                if (!declared.add(n.strip())) {
                    throw new IllegalStateException("helper " + helper + " declares '" + n.strip()
                            + "' again: every top-level name of the library must be unique");
                }
            }
        }
    }

    /** The registration of one script's function: set the call's names, run the helpers' per-call parts, the body. */
    private static String register(Script s, Map<String, String> helpers, Map<String, String> perCall) {
        String text = Script.resource(s.fileName());
        StringBuilder f = new StringBuilder();
        f.append("redis.register_function{function_name='").append(functionName(s))
                .append("', callback=function(keys, args)\n");
        f.append("KEYS, ARGV = keys, args\n");
        Matcher k = KEY_LINE.matcher(text);
        while (k.find()) {
            f.append(k.group(1)).append(" = keys[").append(k.group(2)).append("]\n");
        }
        for (String h : helpers.keySet()) {
            String statements = perCall.get(h);
            if (statements != null) {
                f.append(statements);
            }
        }
        String body = HEADER.matcher(text).replaceFirst("");
        body = KEY_LINE.matcher(body).replaceAll("");
        body = INCLUDE_LINE.matcher(body).replaceFirst("");
        f.append(body);
        if (!body.endsWith("\n")) {
            f.append('\n');
        }
        f.append("end");
        if (!ADD_DATA.contains(s)) {
            f.append(", flags={'allow-oom'}");
        }
        f.append("}\n");
        return f.toString();
    }

    private static String version() {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-1");
            for (Script s : Script.values()) {
                d.update(s.body());
            }
            return HexFormat.of().formatHex(d.digest()).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
