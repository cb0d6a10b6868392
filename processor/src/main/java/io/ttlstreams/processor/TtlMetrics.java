package io.ttlstreams.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.Sensor.RecordingLevel;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Percentile;
import org.apache.kafka.common.metrics.stats.Percentiles;
import org.apache.kafka.common.metrics.stats.Percentiles.BucketSizing;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.api.ProcessingContext;

/**
 * Task-level metrics of ttl-streams, registered through Kafka Streams' own {@link StreamsMetrics} so
 * that they appear in {@code KafkaStreams#metrics()} and JMX beside the built-in ones: group
 * {@code stream-ttl-metrics}, tag {@code ttl-id} = task id, each counter as {@code <name>-total} and
 * {@code <name>-rate}.
 *
 * <p>Each processor instance owns one {@code TtlMetrics} and creates only the sensors it records, so
 * that closing one processor never removes a sensor another still uses.
 */
public final class TtlMetrics implements AutoCloseable {

    /** Metric scope: group {@code stream-ttl-metrics}, entity tag {@code ttl-id}. */
    public static final String SCOPE = "ttl";
    /** Counter: documents given a (new) deadline. */
    public static final String SCHEDULED = "documents-scheduled";
    /** Counter: scheduled documents cancelled (deleted, no longer expiring, namespace dropped). */
    public static final String CANCELLED = "documents-cancelled";
    /** Counter: delete commands emitted. */
    public static final String EMITTED = "deletes-emitted";
    /** Counter: records sent to the dead-letter topic. */
    public static final String DEAD_LETTERED = "events-dead-lettered";
    /** Counter: events of operation types that do not affect expiry. */
    public static final String SKIPPED = "events-skipped";
    /** Counter: events older than a drop of their namespace, ignored. */
    public static final String STALE = "events-stale";
    /** Counter: per-document ttl values that were invalid, so the collection default applied. */
    public static final String DOCUMENT_TTL_IGNORED = "document-ttl-ignored";
    /** Distribution: delete command emitted minus deadline, in ms ({@code -p50}, {@code -p99}, {@code -max}). */
    public static final String EXPIRY_LAG_MS = "expiry-lag-ms";

    private static final double LAG_HISTOGRAM_MAX_MS = 10_000;
    private static final int LAG_HISTOGRAM_BYTES = 4 * 2_000; // 2000 buckets of 5 ms

    private final StreamsMetrics streamsMetrics;
    private final String taskId;
    private final Map<String, String> tags;
    private final List<Sensor> sensors = new ArrayList<>();

    private TtlMetrics(StreamsMetrics streamsMetrics, String taskId) {
        this.streamsMetrics = streamsMetrics;
        this.taskId = taskId;
        this.tags = Map.of("thread-id", Thread.currentThread().getName(), SCOPE + "-id", taskId);
    }

    /** Metrics of the task the given processor context belongs to. */
    public static TtlMetrics forTask(ProcessingContext context) {
        return new TtlMetrics(context.metrics(), context.taskId().toString());
    }

    /** Returns a counter sensor recording {@code <name>-total} and {@code <name>-rate}. */
    public Sensor counter(String name) {
        Sensor sensor = streamsMetrics.addRateTotalSensor(SCOPE, taskId, name, RecordingLevel.INFO);
        sensors.add(sensor);
        return sensor;
    }

    /** Returns the sensor recording the expiry lag distribution in milliseconds. */
    public Sensor expiryLag() {
        Sensor sensor = streamsMetrics.addSensor(SCOPE + "." + taskId + "." + EXPIRY_LAG_MS, RecordingLevel.INFO);
        String group = "stream-" + SCOPE + "-metrics";
        sensor.add(new Percentiles(
                LAG_HISTOGRAM_BYTES,
                LAG_HISTOGRAM_MAX_MS,
                BucketSizing.CONSTANT,
                new Percentile(name(EXPIRY_LAG_MS + "-p50", "Median expiry lag in ms", group), 50),
                new Percentile(name(EXPIRY_LAG_MS + "-p99", "99th percentile expiry lag in ms", group), 99)));
        sensor.add(name(EXPIRY_LAG_MS + "-max", "Maximum expiry lag in ms", group), new Max());
        sensors.add(sensor);
        return sensor;
    }

    private MetricName name(String name, String description, String group) {
        return new MetricName(name, group, description, tags);
    }

    @Override
    public void close() {
        sensors.forEach(streamsMetrics::removeSensor);
        sensors.clear();
    }
}
