package io.ttlstreams.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.CompoundStat;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.stats.Max;

/**
 * A lag histogram as a Kafka metrics stat: cumulative counts of recordings at most each bound ({@code <name>-le-<ms>}),
 * their count ({@code <name>-count}) and sum ({@code <name>-sum}), since creation, so that Prometheus can take
 * quantiles over any window and across instances, and the largest of the last samples ({@code <name>-max}). The
 * buckets reach a day, so that quantiles still mean something after an outage. A negative lag (a document deleted
 * early by someone else) is counted as 0.
 *
 * <p>Each of its metrics reads through a {@link Figure}, which names the histogram it belongs to: an exporter takes
 * the whole histogram from it ({@link #snapshot()}), never from the metrics' names.
 */
public final class LagHistogram implements CompoundStat {

    /** Fine where the lag lives normally (tens to hundreds of ms), coarse where it lives during an outage. */
    private static final long[] BOUNDS_MS = {
        10,
        25,
        50,
        100,
        250,
        500,
        1_000,
        2_500,
        5_000,
        10_000,
        30_000,
        TimeUnit.MINUTES.toMillis(1),
        TimeUnit.MINUTES.toMillis(5),
        TimeUnit.MINUTES.toMillis(15),
        TimeUnit.MINUTES.toMillis(30),
        TimeUnit.HOURS.toMillis(1),
        TimeUnit.HOURS.toMillis(2),
        TimeUnit.HOURS.toMillis(6),
        TimeUnit.HOURS.toMillis(12),
        TimeUnit.DAYS.toMillis(1)
    };

    private static final int COUNT = -1;
    private static final int SUM = -2;
    private static final int MAX = -3;

    private final String base;
    private final String what;
    private final List<NamedMeasurable> stats = new ArrayList<>();
    private final Max max = new Max();
    private final long[] counts = new long[BOUNDS_MS.length];
    private long count;
    private double sum;

    /**
     * @param base the distribution's name without its unit, e.g. {@code expiry-lag}; its metrics are {@code
     *     <base>-ms-...}
     * @param what what is recorded, for the descriptions
     */
    LagHistogram(String base, String group, String what, Map<String, String> tags) {
        this.base = base;
        this.what = what;
        String name = base + "-ms";
        for (int i = 0; i < BOUNDS_MS.length; i++) {
            String description = "Recordings of " + what + " at most " + BOUNDS_MS[i] + " ms";
            add(new MetricName(name + "-le-" + BOUNDS_MS[i], group, description, tags), i);
        }
        add(new MetricName(name + "-count", group, "Recordings of " + what, tags), COUNT);
        add(new MetricName(name + "-sum", group, "Sum of " + what + " in ms", tags), SUM);
        add(new MetricName(name + "-max", group, "Maximum " + what + " in ms", tags), MAX);
    }

    private void add(MetricName name, int figure) {
        stats.add(new NamedMeasurable(name, new Figure(this, figure)));
    }

    /** The distribution's name without its unit, e.g. {@code expiry-lag}. */
    public String base() {
        return base;
    }

    /** What is recorded, e.g. "expiry lag (command emitted minus deadline)". */
    public String what() {
        return what;
    }

    @Override
    public List<NamedMeasurable> stats() {
        return stats;
    }

    @Override
    public synchronized void record(MetricConfig config, double value, long timeMs) {
        max.record(config, value, timeMs);
        double lag = Math.max(0, value);
        count++;
        sum += lag;
        for (int i = BOUNDS_MS.length - 1; i >= 0 && lag <= BOUNDS_MS[i]; i--) {
            counts[i]++;
        }
    }

    private synchronized double measure(int figure, MetricConfig config, long now) {
        return switch (figure) {
            case COUNT -> count;
            case SUM -> sum;
            case MAX -> max.measure(config, now);
            default -> counts[figure];
        };
    }

    /** The counts since creation, at one moment. */
    public synchronized Snapshot snapshot() {
        return new Snapshot(BOUNDS_MS.clone(), counts.clone(), count, sum);
    }

    /**
     * The histogram at one moment.
     *
     * @param boundsMs the buckets' upper bounds, ascending
     * @param cumulative per bound, the recordings at most it
     * @param count all recordings
     * @param sumMs their sum
     */
    public record Snapshot(long[] boundsMs, long[] cumulative, long count, double sumMs) {}

    /**
     * One metric of a histogram: a bucket, the count, the sum or the maximum.
     *
     * @param histogram the histogram it belongs to
     * @param figure the bucket's index, or which other figure
     */
    public record Figure(LagHistogram histogram, int figure) implements Measurable {

        /** Whether this is the windowed maximum, which only the metric can measure (with its sensor's config). */
        public boolean isMax() {
            return figure == MAX;
        }

        @Override
        public double measure(MetricConfig config, long now) {
            return histogram.measure(figure, config, now);
        }
    }
}
