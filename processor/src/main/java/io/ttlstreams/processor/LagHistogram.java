package io.ttlstreams.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.CompoundStat;
import org.apache.kafka.common.metrics.MetricConfig;

/**
 * A lag histogram as a Kafka metrics stat: cumulative counts of recordings at most each bound ({@code <name>-le-<ms>}),
 * their count ({@code <name>-count}) and sum ({@code <name>-sum}), since creation, so that Prometheus can take
 * quantiles over any window and across instances. The buckets reach a day, so that quantiles still mean something
 * after an outage. A negative lag (a document deleted early by someone else) is recorded as 0.
 *
 * <p>Kafka's {@code Sensor} records and measures under its own lock, so the plain fields need no more.
 */
public final class LagHistogram implements CompoundStat {

    /** Suffix of the bucket metrics, followed by the bound in ms. */
    public static final String BUCKET = "-le-";
    /** Suffix of the count of recordings. */
    public static final String COUNT = "-count";
    /** Suffix of the sum of recordings, in ms. */
    public static final String SUM = "-sum";

    /** Fine where the lag lives normally (tens to hundreds of ms), coarse where it lives during an outage. */
    static final long[] BOUNDS_MS = {
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

    private final List<NamedMeasurable> stats = new ArrayList<>();
    private final long[] counts = new long[BOUNDS_MS.length];
    private long count;
    private double sum;

    LagHistogram(String name, String group, String what, Map<String, String> tags) {
        for (int i = 0; i < BOUNDS_MS.length; i++) {
            int bucket = i;
            stats.add(new NamedMeasurable(
                    new MetricName(
                            name + BUCKET + BOUNDS_MS[i],
                            group,
                            "Recordings of " + what + " at most " + BOUNDS_MS[i] + " ms",
                            tags),
                    (config, now) -> counts[bucket]));
        }
        stats.add(new NamedMeasurable(
                new MetricName(name + COUNT, group, "Recordings of " + what, tags), (config, now) -> count));
        stats.add(new NamedMeasurable(
                new MetricName(name + SUM, group, "Sum of " + what + " in ms", tags), (config, now) -> sum));
    }

    @Override
    public List<NamedMeasurable> stats() {
        return stats;
    }

    @Override
    public void record(MetricConfig config, double value, long timeMs) {
        double lag = Math.max(0, value);
        count++;
        sum += lag;
        for (int i = BOUNDS_MS.length - 1; i >= 0 && lag <= BOUNDS_MS[i]; i--) {
            counts[i]++;
        }
    }
}
