package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The overview's sparkline: its points, its scale and its size. */
class SparklineTest {

    private static final Pattern POINTS = Pattern.compile("<polyline[^>]* points=\"([^\"]*)\"");

    private static Sample sample(long delayed, long ready, long inFlight) {
        return new Sample(0, delayed, ready, inFlight, 7, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN);
    }

    /** @return the drawn points as {x, y} */
    private static List<double[]> points(List<Sample> samples) {
        Html h = new Html();
        Sparkline.draw(h, samples);
        Matcher m = POINTS.matcher(h.toString());
        List<double[]> points = new ArrayList<>();
        if (m.find()) {
            for (String p : m.group(1).split(" ")) {
                String[] xy = p.split(",");
                points.add(new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])});
            }
        }
        return points;
    }

    @Test
    void drawsTheBacklogFromItsSmallestToItsLargestValueOldestOnTheLeft() {
        List<double[]> p = points(List.of(sample(1, 0, 0), sample(2, 3, 0), sample(4, 4, 3)));
        assertThat(p).hasSize(3);
        assertThat(p.get(0)[0]).isLessThan(p.get(1)[0]);
        assertThat(p.get(0)[1]).as("the smallest at the bottom").isCloseTo(Sparkline.HEIGHT - 1.5,
                org.assertj.core.data.Offset.offset(0.1));
        assertThat(p.get(2)[1]).as("the largest at the top").isCloseTo(1.5, org.assertj.core.data.Offset.offset(0.1));
    }

    @Test
    void oneSampleOrAnUnchangedBacklogIsAFlatLineAcross() {
        List<double[]> one = points(List.of(sample(5, 0, 0)));
        assertThat(one).hasSize(2);
        assertThat(one.get(1)[0] - one.get(0)[0]).isGreaterThan(Sparkline.WIDTH - 5);
        assertThat(one).allSatisfy(xy -> assertThat(xy[1]).isEqualTo(Sparkline.HEIGHT / 2.0));
        assertThat(points(List.of(sample(3, 0, 0), sample(0, 3, 0))))
                .allSatisfy(xy -> assertThat(xy[1]).isEqualTo(Sparkline.HEIGHT / 2.0));
        assertThat(points(List.of())).isEmpty();
    }

    @Test
    void manySamplesAreDrawnWithOnePointPerPixelKeepingASpike() {
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < 720; i++) {
            samples.add(sample(i == 361 ? 1_000 : 10, 0, 0));
        }
        Html h = new Html();
        Sparkline.draw(h, samples);
        List<double[]> p = points(samples);
        assertThat(p).hasSize(Sparkline.WIDTH);
        assertThat(p).as("the spike").anySatisfy(xy -> assertThat(xy[1]).isLessThan(2.0));
        assertThat(h.toString()).contains("data-points=\"720\"").contains("now 10, from 10 to 1,000");
    }
}
