package io.ttlstreams.bench;

import java.util.Arrays;

/**
 * Order statistics over benchmark samples. Percentiles use the nearest-rank method: the p-th percentile is the
 * smallest sample with at least p% of the samples at or below it, so it is always a value that was measured.
 */
public final class Stats {

    private Stats() {}

    /** The nearest-rank {@code p}-th percentile (0 &lt; p &lt;= 100) of {@code samples}; they need not be sorted. */
    public static double percentile(double[] samples, double p) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("No samples");
        }
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("Percentile must be in (0, 100], was " + p);
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /** The median: the mean of the two middle samples when their number is even. */
    public static double median(double[] samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("No samples");
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    }

    /**
     * The most instants in any window {@code [t, t + windowLength)}, over every t: a limit per window holds in all
     * windows exactly when this is at most the limit. The instants need not be sorted.
     */
    public static int maxInWindow(long[] instants, long windowLength) {
        if (windowLength <= 0) {
            throw new IllegalArgumentException("Window length must be positive, was " + windowLength);
        }
        long[] sorted = instants.clone();
        Arrays.sort(sorted);
        int most = 0;
        int first = 0;
        for (int last = 0; last < sorted.length; last++) {
            while (sorted[last] - sorted[first] >= windowLength) {
                first++;
            }
            most = Math.max(most, last - first + 1);
        }
        return most;
    }

    /** The smallest sample. */
    public static double min(double[] samples) {
        return Arrays.stream(samples).min().orElseThrow(() -> new IllegalArgumentException("No samples"));
    }

    /** The largest sample. */
    public static double max(double[] samples) {
        return Arrays.stream(samples).max().orElseThrow(() -> new IllegalArgumentException("No samples"));
    }
}
