package io.clockwork.redis;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The scripts as {@link Script} assembles them, checked without a server: every script and helper includes exactly
 * the helpers whose names its code uses, each assembled script defines every helper once and before its first use,
 * and every header names the KEYS and ARGV the code reads, in {@link KeyLayout}'s order. A helper's names are what it
 * defines at the top level ({@code local function f} or {@code local X =}); comments and strings are left out of the
 * search, so a comment may mention any helper.
 */
class ScriptTest {

    private static final Pattern DEFINITION = Pattern.compile("(?m)^local (?:function )?(\\w+)");
    private static final Pattern NAME = Pattern.compile("\\b[A-Za-z_]\\w*\\b");

    /** @return each helper's name (its file name without {@code .lua}) and the names it defines */
    private static Map<String, Set<String>> helpers() throws IOException, URISyntaxException {
        Map<String, Set<String>> helpers = new TreeMap<>();
        try (Stream<Path> files = Files.list(Path.of(Script.class.getResource("include").toURI()))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String file = f.getFileName().toString();
                assertThat(file).endsWith(".lua");
                helpers.put(file.substring(0, file.length() - 4), definitions(code(Files.readString(f))));
            }
        }
        return helpers;
    }

    /** @return the text with comments and string literals blanked out (offsets unchanged) */
    static String code(String lua) {
        StringBuilder out = new StringBuilder(lua);
        int i = 0;
        while (i < lua.length()) {
            char c = lua.charAt(i);
            int end;
            if (lua.startsWith("--[[", i)) {
                end = lua.indexOf("]]", i) + 2;
            } else if (lua.startsWith("--", i)) {
                end = lua.indexOf('\n', i);
                end = end < 0 ? lua.length() : end;
            } else if (c == '\'' || c == '"') {
                end = i + 1;
                while (lua.charAt(end) != c) {
                    end += lua.charAt(end) == '\\' ? 2 : 1;
                }
                end++;
            } else {
                i++;
                continue;
            }
            for (int j = i; j < end; j++) {
                if (out.charAt(j) != '\n') {
                    out.setCharAt(j, ' ');
                }
            }
            i = end;
        }
        return out.toString();
    }

    private static Set<String> definitions(String code) {
        Set<String> names = new TreeSet<>();
        Matcher m = DEFINITION.matcher(code);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static Set<String> names(String code) {
        Set<String> names = new HashSet<>();
        Matcher m = NAME.matcher(code);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    /**
     * @param lua     a script's or helper's text
     * @param self    the helper it is, or null for a script
     * @param helpers every helper's defined names
     * @return the helpers whose names its code uses (other than its own), in name order
     */
    static Set<String> used(String lua, String self, Map<String, Set<String>> helpers) {
        Set<String> names = names(code(lua));
        Set<String> used = new TreeSet<>();
        helpers.forEach((helper, defined) -> {
            if (!helper.equals(self) && defined.stream().anyMatch(names::contains)) {
                used.add(helper);
            }
        });
        return used;
    }

    private static String fileOf(Script s) {
        return Script.resource(s.fileName());
    }

    private static String assembled(Script s) {
        return new String(s.body(), StandardCharsets.UTF_8);
    }

    @Test
    void everyScriptAndHelperIncludesExactlyTheHelpersItUses() throws Exception {
        Map<String, Set<String>> helpers = helpers();
        assertThat(helpers).containsKeys("clock", "meta", "sweep", "wake");
        Set<String> includedSomewhere = new TreeSet<>();
        for (Script s : Script.values()) {
            String lua = fileOf(s);
            assertThat(new TreeSet<>(Script.includes(lua))).as(s.fileName())
                    .isEqualTo(used(lua, null, helpers));
            String whole = assembled(s);
            for (String helper : helpers.keySet()) {
                if (whole.indexOf(opening(helper), whole.indexOf("]]\n")) >= 0) {
                    includedSomewhere.add(helper);
                }
            }
        }
        for (String helper : helpers.keySet()) {
            String lua = Script.resource("include/" + helper + ".lua");
            assertThat(new TreeSet<>(Script.includes(lua))).as(helper).isEqualTo(used(lua, helper, helpers));
            assertThat(helpers.get(helper)).as("%s defines something", helper).isNotEmpty();
        }
        assertThat(includedSomewhere).as("every helper is used").isEqualTo(helpers.keySet());
    }

    @Test
    void everyAssembledScriptDefinesEachHelperOnceBeforeItsFirstUse() throws Exception {
        Map<String, Set<String>> helpers = helpers();
        Set<String> helperNames = new HashSet<>();
        helpers.values().forEach(helperNames::addAll);
        for (Script s : Script.values()) {
            String code = code(assembled(s));
            Map<String, Integer> defined = new TreeMap<>();
            Matcher d = DEFINITION.matcher(code);
            while (d.find()) {
                if (helperNames.contains(d.group(1))) {
                    assertThat(defined.put(d.group(1), d.start(1))).as("%s defines %s twice", s, d.group(1))
                            .isNull();
                }
            }
            Matcher n = NAME.matcher(code);
            while (n.find()) {
                if (helperNames.contains(n.group())) {
                    assertThat(defined.get(n.group())).as("%s uses %s at %d", s, n.group(), n.start())
                            .isNotNull().isLessThanOrEqualTo(n.start());
                }
            }
        }
    }

    @Test
    void everyHelperComesOnceAfterTheHelpersItIncludesAndTheHeaderFirst() throws Exception {
        Map<String, Set<String>> helpers = helpers();
        for (Script s : Script.values()) {
            String lua = assembled(s);
            assertThat(lua).as(s.fileName()).startsWith("--[[\n  " + s.fileName().replace(".lua", "") + ": ")
                    .doesNotContain("-- include:");
            int body = lua.indexOf("]]\n"); // past the script's own header
            for (String helper : helpers.keySet()) {
                int at = lua.indexOf(opening(helper), body);
                assertThat(at).as("%s has %s once", s, helper).isEqualTo(lua.lastIndexOf(opening(helper)));
                for (String needed : Script.includes(Script.resource("include/" + helper + ".lua"))) {
                    if (at >= 0) {
                        assertThat(lua.indexOf(opening(needed), body)).as("%s: %s before %s", s, needed, helper)
                                .isNotNegative().isLessThan(at);
                    }
                }
            }
        }
        String poll = assembled(Script.POLL);
        assertThat(poll.indexOf("local now = now_ms()")).isGreaterThan(poll.indexOf("local function sweep("));
    }

    /** @return how a helper's text opens: its header's first line */
    private static String opening(String helper) {
        return "--[[\n  " + helper + ": ";
    }

    @Test
    void aScriptUsingAHelperItDoesNotIncludeIsCaught() throws Exception {
        Map<String, Set<String>> helpers = helpers();
        String lua = """
                -- include: member
                -- now_ms() in a comment does not count, nor does 'sweep' in a string
                local now = now_ms()
                return member(now, 'x')
                """;
        assertThat(used(lua, null, helpers)).containsExactly("clock", "member");
        assertThat(Script.includes(lua)).containsExactly("member");
    }

    @Test
    void moreThanOneIncludeLineIsRefused() {
        assertThatThrownBy(() -> Script.includes("-- include: keys\nlocal x = 1\n-- include: clock\n"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("more than one include line");
    }

    @Test
    void everyHeaderNamesTheArgumentsTheCodeReadsAndItsReply() {
        Pattern read = Pattern.compile("\\bARGV\\[(\\d+)]");
        for (Script s : Script.values()) {
            String lua = fileOf(s);
            String name = s.fileName().replace(".lua", "");
            assertThat(lua).as(s.fileName()).startsWith("--[[\n  " + name + ": ");
            String header = lua.substring(0, lua.indexOf("]]\n"));
            assertThat(header).as(s.fileName()).contains("\n  Reply: ", "\n  Cost: ");
            Matcher r = read.matcher(code(assembled(s)));
            while (r.find()) {
                assertThat(header).as("%s's header names %s", s.fileName(), r.group())
                        .containsPattern("\\n  " + Pattern.quote(r.group()) + " +\\w");
            }
        }
    }

    /**
     * A script takes exactly the keys its code names (with the helpers it includes): its header lists them as
     * {@link Script#keys()} does, in {@link KeyLayout.Key}'s order, each with what the script does with it, and the
     * script names them {@code local PENDING = KEYS[1]}, one line each, before its include line.
     */
    @Test
    void everyScriptTakesExactlyTheKeysItsCodeNames() {
        Pattern local = Pattern.compile("(?m)^local (\\w+) = KEYS\\[(\\d+)]$");
        Pattern anyKey = Pattern.compile("\\b(" + String.join("|", Stream.of(KeyLayout.Key.values())
                .map(Enum::name).toList()) + ")\\b");
        for (Script s : Script.values()) {
            String lua = fileOf(s);
            List<KeyLayout.Key> keys = s.keys();
            assertThat(keys).as(s.fileName()).isNotEmpty().isSorted();
            if (keys.contains(KeyLayout.Key.SIGNAL)) {
                assertThat(keys.get(keys.size() - 1)).as("%s: the signal key comes last", s).isEqualTo(
                        KeyLayout.Key.SIGNAL);
            }
            String header = lua.substring(0, lua.indexOf("]]\n"));
            assertThat(header).as(s.fileName()).doesNotContainPattern("KEYS\\[[\\d.]+] .*not used");
            Matcher d = local.matcher(lua);
            List<String> declared = new ArrayList<>();
            while (d.find()) {
                assertThat(Integer.parseInt(d.group(2))).as(s.fileName()).isEqualTo(declared.size() + 1);
                assertThat(d.start()).as("%s declares %s before its include line", s, d.group(1))
                        .isLessThan(lua.contains("-- include:") ? lua.indexOf("-- include:") : lua.length());
                declared.add(d.group(1));
            }
            assertThat(declared).as(s.fileName()).isEqualTo(keys.stream().map(Enum::name).toList());
            for (int i = 1; i <= keys.size(); i++) {
                assertThat(header).as(s.fileName()).contains("\n  KEYS[" + i + "] " + keys.get(i - 1).part() + " ");
            }
            Set<String> named = new TreeSet<>();
            Matcher n = anyKey.matcher(code(assembled(s)).replaceAll("(?m)^local \\w+ = KEYS\\[\\d+]$", ""));
            while (n.find()) {
                named.add(n.group(1));
            }
            assertThat(named).as("%s names exactly the keys it takes", s)
                    .isEqualTo(new TreeSet<>(keys.stream().map(Enum::name).toList()));
        }
    }

    @Test
    void theLayoutPassesEachScriptItsKeysAndTheSignalOnlyWhereItsSlotHoldsIt() {
        KeyLayout standalone = new KeyLayout("q", 2, false);
        KeyLayout cluster = new KeyLayout("q", 2, true);
        for (Script s : Script.values()) {
            for (int p = 0; p < 2; p++) {
                byte[][] k = standalone.keys(s, p);
                assertThat(k.length).as("%s in partition %d", s, p).isEqualTo(s.keys().size());
                for (int i = 0; i < k.length; i++) {
                    KeyLayout.Key key = s.keys().get(i);
                    assertThat(new String(k[i], StandardCharsets.UTF_8))
                            .isEqualTo(KeyLayout.prefix("q", key.perQueue() ? 0 : p) + key.part());
                }
                boolean dropped = p == 1 && s.keys().contains(KeyLayout.Key.SIGNAL);
                assertThat(cluster.keys(s, p).length).as("%s in a cluster's partition %d", s, p)
                        .isEqualTo(s.keys().size() - (dropped ? 1 : 0));
            }
        }
    }
}
