package io.clockwork.redis;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class IdGeneratorTest {

    @Test
    void idsAreDistinctWithinAndAcrossGeneratorsAndShort() {
        IdGenerator a = new IdGenerator();
        IdGenerator b = new IdGenerator();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String x = a.next();
            String y = b.next();
            assertThat(x.length()).isLessThanOrEqualTo(36);
            assertThat(x).matches("[A-Za-z0-9_-]{22}-[0-9a-z]+");
            ids.add(x);
            ids.add(y);
        }
        assertThat(ids).hasSize(20_000);
        assertThat(a.next().substring(0, 22)).as("distinct random prefixes").isNotEqualTo(b.next().substring(0, 22));
    }
}
