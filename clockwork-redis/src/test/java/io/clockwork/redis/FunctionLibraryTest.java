package io.clockwork.redis;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library's text without a server: its name, one function per script, helpers defined once at its top level
 * with their per-call parts moved into the functions, and the memory flags. {@code RedisQueueServerCodeIT} and
 * every Redis integration test run it on real servers.
 */
class FunctionLibraryTest {

    private static final String TEXT = FunctionLibrary.text();

    @Test
    void theLibraryIsNamedByTheDigestOfEveryScript() {
        assertThat(FunctionLibrary.VERSION).matches("[0-9a-f]{12}");
        assertThat(TEXT).startsWith("#!lua name=" + FunctionLibrary.NAME + "\n");
    }

    @Test
    void everyScriptIsOneFunctionOfItsOwnName() {
        Matcher m = Pattern.compile("redis\\.register_function\\{function_name='([a-z0-9_]+)'").matcher(TEXT);
        Set<String> registered = new HashSet<>();
        while (m.find()) {
            assertThat(registered.add(m.group(1))).as("registered once: %s", m.group(1)).isTrue();
        }
        assertThat(registered).hasSize(Script.values().length);
        for (Script s : Script.values()) {
            assertThat(registered).contains(FunctionLibrary.functionName(s));
        }
    }

    @Test
    void helpersAreDefinedOnceAtTheTopAndTheirPerCallPartsRunInEachFunction() {
        String top = TEXT.substring(0, TEXT.indexOf("redis.register_function"));
        assertThat(count(top, "local function now_ms(")).isOne();
        assertThat(count(TEXT, "local function now_ms(")).as("nowhere else").isOne();
        // lost.lua's per-call count: declared at the top, set to 0 at the start of each function that uses it
        assertThat(top).contains("\nlocal lost_now\n").doesNotContain("local lost_now = 0");
        String poll = function(Script.POLL);
        assertThat(poll).contains("\nlost_now = 0\n").contains("\nPENDING = keys[1]\n");
        assertThat(poll.indexOf("lost_now = 0")).as("before the body").isLessThan(poll.indexOf("return take_due("));
    }

    @Test
    void functionsThatAddDataAreRefusedAtMaxmemoryAndTheOthersMayDrainAFullServer() {
        assertThat(function(Script.OFFER)).doesNotContain("allow-oom");
        assertThat(function(Script.SCHED_FIRE)).doesNotContain("allow-oom");
        assertThat(function(Script.POLL)).endsWith("end, flags={'allow-oom'}}\n");
        assertThat(function(Script.ACK)).endsWith("end, flags={'allow-oom'}}\n");
    }

    /** The registration of one script's function, from its name to the next registration or the end. */
    private static String function(Script s) {
        int from = TEXT.indexOf("function_name='" + FunctionLibrary.functionName(s) + "'");
        int to = TEXT.indexOf("redis.register_function", from);
        return TEXT.substring(from, to < 0 ? TEXT.length() : to);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
