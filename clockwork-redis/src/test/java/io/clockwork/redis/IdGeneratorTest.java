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

    @Test
    void idsGeneratedForAPartitionHashThereAndStayDistinct() {
        IdGenerator g = new IdGenerator();
        for (int partitions : new int[] {1, 2, 3, 12, 64}) {
            PartitionSelector selector = new PartitionSelector(partitions);
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < 2_000; i++) {
                int p = i % partitions;
                String id = g.nextIn(p, selector);
                assertThat(selector.partitionOf(id)).as("%s of %d partitions", id, partitions).isEqualTo(p);
                assertThat(id).matches("[A-Za-z0-9_-]{22}-[0-9a-z]+");
                ids.add(id);
            }
            assertThat(ids).hasSize(2_000);
        }
    }

    @Test
    void batchTargetsTakeEveryPartitionInTurn() {
        PartitionSelector selector = new PartitionSelector(5);
        int[] seen = new int[5];
        for (int i = 0; i < 50; i++) {
            seen[selector.nextBatchTarget()]++;
        }
        assertThat(seen).containsOnly(10);
    }
}
