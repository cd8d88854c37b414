package io.clockwork.postgres;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class IdsTest {

    @Test
    void oneClientsIdsSortInTheOrderTheyWereMadeAcrossEveryDigitCount() {
        Ids ids = new Ids();
        String previous = ids.next();
        for (int i = 0; i < 50_000; i++) { // past 36, 1,296 and 46,656: the counter's second, third and fourth digit
            String id = ids.next();
            assertThat(id).as("id %d after %s", i, previous).isGreaterThan(previous);
            previous = id;
        }
    }

    @Test
    void idsAreTwentyFourToThirtySixAsciiCharactersUpToTheLargestCounter() {
        assertThat(new Ids().next()).hasSize(24).matches("[A-Za-z0-9_-]+");
        Ids last = new Ids(Long.MAX_VALUE - 2);
        String before = last.next();
        String max = last.next();
        assertThat(max).hasSize(36).isGreaterThan(before).matches("[A-Za-z0-9_-]+");
    }

    @Test
    void clientsDrawDistinctPrefixes() {
        Set<String> firsts = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            firsts.add(new Ids().next());
        }
        assertThat(firsts).hasSize(1000);
    }
}
