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

    @Test
    void aPlacedIdIsItsClientPartAndAPlaceAndBelongsToTheClientPartsPartition() {
        IdGenerator g = new IdGenerator();
        PartitionSelector selector = new PartitionSelector(7);
        for (int i = 0; i < 500; i++) {
            String part = g.nextIn(i % 7, selector);
            String id = IdGenerator.placed(part, Integer.toHexString(1_790_000_000 + i) + "." + Integer.toHexString(i)
                    + "." + Integer.toHexString(i % 128));
            assertThat(IdGenerator.clientPartLength(id)).as(id).isEqualTo(part.length());
            assertThat(selector.partitionOf(id)).as(id).isEqualTo(i % 7);
            assertThat(IdGenerator.clientPartLength(part)).as("not placed: %s", part).isEqualTo(-1);
        }
    }

    @Test
    void idsOfAnyOtherShapeAreNotPlaced() {
        String prefix = "abcdefghijklmnopqrstuv-";
        assertThat(IdGenerator.clientPartLength(prefix + "1z.6a.3.7f")).isEqualTo(25);
        for (String id : new String[] {"order-1234", "", prefix + "1z", prefix + "1z.6a.3", prefix + "1z.6a.3.7f.1",
                prefix + "1z.6a..7f", prefix + "1z.6a.3.7g", prefix + "1Z.6a.3.7f", prefix + ".6a.3.7f",
                "abcdefghijklmnopqrstu!-1z.6a.3.7f", "abcdefghijklmnopqrstuvw1z.6a.3.7f",
                prefix + "12345678901234.6a.3.7f", "short-1.2.3.4"}) {
            assertThat(IdGenerator.clientPartLength(id)).as(id).isEqualTo(-1);
        }
        PartitionSelector selector = new PartitionSelector(5);
        int hash = PartitionSelector.FNV_OFFSET;
        for (byte b : "order-1.2.3.4".getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            hash = PartitionSelector.mix(hash, b & 0xff);
        }
        assertThat(selector.partitionOf("order-1.2.3.4")).as("a chosen id hashes whole")
                .isEqualTo(selector.partitionOfHash(hash));
    }

    @Test
    void counterRunsDescribeTheFirstCounterAndEachRiseAsABase36Digit() {
        String p = "abcdefghijklmnopqrstuv-";
        String[] ids = {p + "z", p + "10", p + "12", p + "1a", "order-1", p + "2a", "bbcdefghijklmnopqrstuv-1b",
            p + "12345678901"};
        // z = 35, 10 = 36, 12 = 38, 1a = 46: rises 1, 2, 8.
        assertThat(IdGenerator.counterRuns(ids, new int[] {0, 1, 2, 3})).isEqualTo("z,128");
        assertThat(IdGenerator.counterRuns(ids, new int[] {1})).isEqualTo("10,");
        assertThat(IdGenerator.counterRuns(ids, new int[] {3, 5})).as("a rise of 36").isNull();
        assertThat(IdGenerator.counterRuns(ids, new int[] {2, 1})).as("falling").isNull();
        assertThat(IdGenerator.counterRuns(ids, new int[] {0, 4})).as("not generated").isNull();
        assertThat(IdGenerator.counterRuns(ids, new int[] {3, 6})).as("another prefix").isNull();
        assertThat(IdGenerator.counterRuns(ids, new int[] {7})).as("an 11-digit counter").isNull();
        IdGenerator g = new IdGenerator();
        PartitionSelector selector = new PartitionSelector(3);
        String[] batch = new String[100];
        int[] all = new int[batch.length];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = g.nextIn(1, selector);
            all[i] = i;
        }
        String runs = IdGenerator.counterRuns(batch, all);
        assertThat(runs).startsWith(batch[0].substring(23) + ",").hasSize(batch[0].length() - 23 + 1 + 99);
    }
}
