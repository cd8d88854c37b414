package io.clockwork.redis;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionSelectorTest {

    @Test
    void pollsStartTogetherForAFewCallsThenMoveOnSoEveryPartitionGetsItsTurn() {
        PartitionSelector s = new PartitionSelector(3);
        List<Integer> starts = new ArrayList<>();
        for (int i = 0; i < 3 * PartitionSelector.STRIDE; i++) {
            starts.add(s.nextStart());
        }
        for (int p = 0; p < 3; p++) {
            assertThat(starts.subList(p * PartitionSelector.STRIDE, (p + 1) * PartitionSelector.STRIDE))
                    .containsOnly(p);
        }
        assertThat(s.nextStart()).isZero();
    }
}
