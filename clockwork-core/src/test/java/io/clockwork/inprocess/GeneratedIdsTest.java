package io.clockwork.inprocess;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-process queue's generated ids: its prefix, then the counter in base 36, across digit-count boundaries. */
class GeneratedIdsTest {

    @Test
    void idsAreThePrefixAndTheCounterInBase36() {
        GeneratedIds ids = new GeneratedIds();
        String first = ids.next();
        assertThat(first).matches("[0-9a-z]+-1");
        String prefix = first.substring(0, first.length() - 1);
        // 2 .. 36^3 + 1 crosses the boundaries from one to four digits
        for (long n = 2; n <= 36L * 36 * 36 + 1; n++) {
            assertThat(ids.next()).isEqualTo(prefix + Long.toString(n, 36));
        }
    }

    @Test
    void twoGeneratorsUseDifferentPrefixes() {
        // 63 random bits each: equal prefixes would be a broken random source, not bad luck
        assertThat(new GeneratedIds().next()).isNotEqualTo(new GeneratedIds().next());
    }

    @Test
    void threadsGeneratingAtOnceGetDistinctWellFormedIds() throws InterruptedException {
        GeneratedIds ids = new GeneratedIds();
        String prefix = ids.next().replaceAll("1$", "");
        int threads = 4;
        int each = 20_000;
        Set<String> seen = ConcurrentHashMap.newKeySet();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    seen.add(ids.next());
                }
            }));
        }
        workers.forEach(Thread::start);
        for (Thread w : workers) {
            w.join();
        }
        Set<String> expected = new HashSet<>();
        for (long n = 2; n <= threads * each + 1; n++) {
            expected.add(prefix + Long.toString(n, 36));
        }
        // one comparison of hash sets: AssertJ's contains scans a collection, per element asked
        assertThat(seen.equals(expected)).as("the ids are exactly the prefix and the counters 2 .. %d",
                threads * each + 1).isTrue();
        assertThat(seen).hasSize(threads * each);
    }
}
