package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StatsTest {

    private static final double[] ONE_TO_HUNDRED =
            java.util.stream.IntStream.rangeClosed(1, 100).mapToDouble(i -> i).toArray();

    @Test
    void shouldTakeNearestRankPercentiles() {
        assertThat(Stats.percentile(ONE_TO_HUNDRED, 50)).isEqualTo(50);
        assertThat(Stats.percentile(ONE_TO_HUNDRED, 99)).isEqualTo(99);
        assertThat(Stats.percentile(ONE_TO_HUNDRED, 100)).isEqualTo(100);
        assertThat(Stats.percentile(new double[] {7}, 1)).isEqualTo(7);
    }

    @Test
    void shouldNotNeedSortedSamplesNorChangeThem() {
        double[] samples = {5, 1, 4, 2, 3};
        assertThat(Stats.percentile(samples, 60)).isEqualTo(3);
        assertThat(samples).containsExactly(5, 1, 4, 2, 3);
    }

    @Test
    void shouldAverageTheMiddlePairForAnEvenMedian() {
        assertThat(Stats.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
        assertThat(Stats.median(new double[] {3, 1, 2})).isEqualTo(2);
    }

    @Test
    void shouldGiveMinAndMax() {
        assertThat(Stats.min(new double[] {3, -1, 2})).isEqualTo(-1);
        assertThat(Stats.max(new double[] {3, -1, 2})).isEqualTo(3);
    }

    @Test
    void shouldCountTheBusiestWindowWhereverItStarts() {
        // [999, 1999) holds three; no window aligned to whole seconds does.
        long[] instants = {1500, 0, 999, 1000, 2100};
        assertThat(Stats.maxInWindow(instants, 1000)).isEqualTo(3);
        assertThat(instants).containsExactly(1500, 0, 999, 1000, 2100);
    }

    @Test
    void shouldKeepWindowsHalfOpen() {
        assertThat(Stats.maxInWindow(new long[] {0, 1000, 2000}, 1000)).isEqualTo(1);
        assertThat(Stats.maxInWindow(new long[] {5, 5, 5}, 1)).isEqualTo(3);
        assertThat(Stats.maxInWindow(new long[0], 1000)).isZero();
        assertThatThrownBy(() -> Stats.maxInWindow(new long[] {1}, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectNoSamplesAndBadPercentiles() {
        assertThatThrownBy(() -> Stats.percentile(new double[0], 50)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Stats.percentile(ONE_TO_HUNDRED, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Stats.percentile(ONE_TO_HUNDRED, 101)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Stats.median(new double[0])).isInstanceOf(IllegalArgumentException.class);
    }
}
