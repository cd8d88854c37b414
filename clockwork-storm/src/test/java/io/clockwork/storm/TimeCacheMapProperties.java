package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Random put/remove/get/advance sequences against Storm's algorithm rotated every
 * {@code expiration / (numBuckets - 1)} of manual time, and the promise that follows from it: an entry is present
 * for at least {@code expiration} after its last put and gone by {@code expiration * (1 + 1 / (numBuckets - 1))}.
 */
class TimeCacheMapProperties {

    private static final long EXPIRATION_MS = 1200;

    record Op(int kind, int key, int amount) { }

    @Provide
    Arbitrary<List<Op>> ops() {
        return Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 10),
                Arbitraries.integers().between(0, 2000)).as(Op::new).list().ofMaxSize(200);
    }

    @Property(tries = 200)
    void mapBehavesLikeStormsAlgorithmOnItsSchedule(@ForAll("ops") List<Op> ops,
            @ForAll @IntRange(min = 2, max = 5) int buckets) {
        ManualTicker ticker = new ManualTicker();
        List<Map.Entry<Integer, Integer>> reported = new ArrayList<>();
        TimeCacheMap<Integer, Integer> map = new TimeCacheMap<>(Duration.ofMillis(EXPIRATION_MS), buckets,
                (k, v) -> reported.add(Map.entry(k, v)), ticker, false);
        RotatingMapProperties.Model model = new RotatingMapProperties.Model(buckets);
        long period = EXPIRATION_MS / (buckets - 1);
        long upperBound = EXPIRATION_MS + period;
        long[] lastPut = new long[11];
        java.util.Arrays.fill(lastPut, -1);
        long now = 0;
        long nextRotation = period;
        List<Map.Entry<Integer, Integer>> expected = new ArrayList<>();
        for (Op op : ops) {
            switch (op.kind()) {
                case 0, 1 -> {
                    map.put(op.key(), op.amount());
                    model.put(op.key(), op.amount());
                    lastPut[op.key()] = now;
                }
                case 2 -> {
                    assertThat(map.remove(op.key())).isEqualTo(model.remove(op.key()));
                    lastPut[op.key()] = -1;
                }
                case 3 -> assertThat(map.get(op.key())).isEqualTo(model.get(op.key()));
                default -> {
                    ticker.advance(op.amount(), TimeUnit.MILLISECONDS);
                    now += op.amount();
                    map.expireDue();
                    while (nextRotation <= now) {
                        expected.addAll(model.rotate().entrySet());
                        nextRotation += period;
                    }
                    assertThat(reported).containsExactlyInAnyOrderElementsOf(expected);
                }
            }
            for (int key = 0; key <= 10; key++) {
                boolean present = map.containsKey(key);
                assertThat(present).isEqualTo(model.get(key) != null);
                if (lastPut[key] >= 0 && now - lastPut[key] < EXPIRATION_MS) {
                    assertThat(present).as("key %d put %d ms ago", key, now - lastPut[key]).isTrue();
                }
                if (lastPut[key] >= 0 && now - lastPut[key] >= upperBound) {
                    assertThat(present).as("key %d put %d ms ago", key, now - lastPut[key]).isFalse();
                }
            }
        }
        map.close();
    }
}
