package io.ttlstreams.processor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.Sensor.RecordingLevel;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Percentile;
import org.apache.kafka.common.metrics.stats.Percentiles;
import org.apache.kafka.common.metrics.stats.Percentiles.BucketSizing;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.api.ProcessingContext;

/**
 * The one place ttl-streams records its events: sensors in Kafka Streams' own registry ({@link StreamsMetrics}), so
 * that they appear in {@code KafkaStreams#metrics()} and JMX beside the built-in ones; task-level ones leave with
 * their task. Group {@code stream-ttl-metrics}, tag {@code ttl-id} = task (plus {@code rule} where the sensor is per
 * rule); each counter as {@code <name>-total} and {@code <name>-rate}. {@code GET /metrics} exports the same metrics
 * to Prometheus ({@code io.ttlstreams.metrics.TtlStreamsCollector}), reading each through its stat ({@link Total},
 * {@link LagHistogram.Figure}), never through its name; nothing else counts them.
 *
 * <p>Adding a metric: a name constant here and a {@link #counter} (or {@link #lag}) call where it is recorded (for
 * the scheduler, a field of {@code SchedulerSensors}); JMX and Prometheus ({@code ttl_<name>_total}, the tags as
 * labels) see it with no further change.
 *
 * <p>Each processor instance owns one {@code TtlMetrics} and creates only the sensors it records, so that closing one
 * processor never removes a sensor another still uses.
 */
public final class TtlMetrics implements AutoCloseable {

    /** Metric scope: group {@code stream-ttl-metrics}, entity tag {@code ttl-id}. */
    public static final String SCOPE = "ttl";
    /** The metric group Kafka Streams files the scope's metrics under. */
    public static final String GROUP = "stream-" + SCOPE + "-metrics";
    /** The tag naming the task. */
    public static final String TASK_TAG = SCOPE + "-id";
    /** The tag naming the rule, on the per-rule sensors. */
    public static final String RULE_TAG = "rule";
    /** The tag naming the reason, on the per-reason sensors (such as {@link #SINK_DEAD_LETTERS}). */
    public static final String REASON_TAG = "reason";
    /** Counter suffix: the count since the sensor was created. */
    public static final String TOTAL = "-total";
    /** Counter: documents given a (new) deadline. */
    public static final String SCHEDULED = "documents-scheduled";
    /** Counter: scheduled documents cancelled (deleted, no longer expiring, namespace dropped). */
    public static final String CANCELLED = "documents-cancelled";
    /** Counter, per rule: delete commands emitted (first attempts). */
    public static final String EMITTED = "deletes-emitted";
    /** Counter: records sent to the dead-letter topic. */
    public static final String DEAD_LETTERED = "events-dead-lettered";
    /** Counter, per instance (not per task: the failure ends the task's thread): punctuations that threw. */
    public static final String PUNCTUATION_FAILURES = "punctuation-failures";
    /** Counter: events of operation types that do not affect expiry. */
    public static final String SKIPPED = "events-skipped";
    /** Counter: events older than a drop of their namespace, ignored. */
    public static final String STALE = "events-stale";
    /** Counter: per-document ttl values that were invalid, so the collection default applied. */
    public static final String DOCUMENT_TTL_IGNORED = "document-ttl-ignored";
    /**
     * Counter: documents whose epoch number no deadline means (before 1971, after year 9999, more than five years
     * before the change), so nothing was scheduled on it.
     */
    public static final String IMPLAUSIBLE = "epoch-values-implausible";
    /** Counter: change events that left a document's entry exactly as it was, so nothing was written. */
    public static final String UNCHANGED = "events-unchanged";
    /** Counter: resync events older than the latest change already applied to their document, ignored. */
    public static final String RESYNC_STALE = "resyncs-stale";
    /** Counter: delete commands emitted again because no confirmation came in time. */
    public static final String REEMITTED = "deletes-reemitted";
    /** Counter, per rule: deletes the change stream confirmed while their command awaited confirmation. */
    public static final String CONFIRMED = "deletes-confirmed";
    /** Counter, per rule: documents given up on after the last attempt brought no confirmation. */
    public static final String UNCONFIRMED = "deletes-unconfirmed";
    /** Counter: delete commands suppressed by {@code ttl.dry.run}. */
    public static final String DRY_RUN = "deletes-dry-run";
    /** Counter: entries cancelled because their rule no longer exists. */
    public static final String RULE_REMOVED = "entries-rule-removed";
    /** Counter: entries held because their rule changed in a way that needs the document. */
    public static final String HELD = "entries-held";
    /**
     * Counter: entries held by the blast-radius guard: due on arrival (deadline passed when the schedule learnt of
     * it) past their rule's limit, so no delete command until an operator approves.
     */
    public static final String HELD_FOR_APPROVAL = "entries-held-for-approval";
    /** Counter: held entries an operator approved, released to expire. */
    public static final String APPROVED = "entries-approved";
    /** Counter: held entries an operator rejected, cancelled until their document's next change. */
    public static final String REJECTED = "entries-rejected";
    /** Counter: entries whose deadline moved because their rule's expire.after.seconds changed. */
    public static final String RESCHEDULED = "entries-rescheduled";
    /** Counter: documents read back from MongoDB because their delete command went unconfirmed. */
    public static final String READ_BACKS = "read-backs-issued";
    /** Counter: read-backs that found the document gone, confirming its delete (also counted in deletes-confirmed). */
    public static final String CONFIRMED_BY_READ = "deletes-confirmed-by-read";
    /** Counter: read-backs that found other values, giving the document the deadline they give or none. */
    public static final String RESCHEDULED_BY_READ = "entries-rescheduled-by-read";
    /** Counter: read-backs that failed, were refused or went unanswered: the command went out again instead. */
    public static final String READ_BACKS_FAILED = "read-backs-failed";
    /** Counter: expired records written to ttl.expired.topic, one per confirmed expiry. */
    public static final String EXPIRED_RECORDS = "expired-records";
    /** Counter: EXPIRING notices published, notice.before.seconds before their deadline. */
    public static final String NOTICES = "notices-published";
    /** Counter: mark commands confirmed by the change stream (soft expiry, a rule's action mark). */
    public static final String MARKED = "documents-marked";
    /**
     * Counter: delete events of documents whose command awaited confirmation, whose pre-image shows values the
     * command would not have deleted: another writer deleted them, and no expired record was written.
     */
    public static final String DELETES_NOT_CAUSED = "deletes-not-caused";
    /**
     * Counter, per {@code reason}: delete commands the sink connector dead-lettered to {@code ttl.sink.dlq} (refused
     * by the sink guard, or rejected by MongoDB), which deleted nothing.
     */
    public static final String SINK_DEAD_LETTERS = "sink-dead-letters";
    /** Distribution, per rule: delete command emitted minus deadline (see {@link #lag}). */
    public static final String EXPIRY_LAG = "expiry-lag";
    /** Distribution, per rule: the change stream's delete event minus the deadline, for confirmed deletes. */
    public static final String CONFIRMED_LAG = "confirmed-lag";
    /** The metrics of {@link #EXPIRY_LAG}, in ms. */
    public static final String EXPIRY_LAG_MS = EXPIRY_LAG + "-ms";
    /** The metrics of {@link #CONFIRMED_LAG}, in ms. */
    public static final String CONFIRMED_LAG_MS = CONFIRMED_LAG + "-ms";

    /**
     * Lags up to 6 hours, so that percentiles still say something during an outage: 2000 buckets of linearly
     * growing width (about 11 ms at the low end, where lags normally are).
     */
    private static final double LAG_PERCENTILES_MAX_MS = 6 * 3_600_000;

    private static final int LAG_PERCENTILES_BYTES = 4 * 2_000;

    private final StreamsMetrics streamsMetrics;
    private final String taskId;
    private final Map<String, String> tags;
    private final List<Sensor> sensors = new ArrayList<>();

    private TtlMetrics(StreamsMetrics streamsMetrics, String taskId) {
        this.streamsMetrics = streamsMetrics;
        this.taskId = taskId;
        this.tags = Map.of("thread-id", Thread.currentThread().getName(), TASK_TAG, taskId);
    }

    /** Metrics of the task the given processor context belongs to. */
    public static TtlMetrics forTask(ProcessingContext context) {
        return forTask(context.metrics(), context.taskId().toString());
    }

    /** Metrics of task {@code taskId} in {@code streamsMetrics}. */
    public static TtlMetrics forTask(StreamsMetrics streamsMetrics, String taskId) {
        return new TtlMetrics(streamsMetrics, taskId);
    }

    /** Returns a counter sensor recording {@code <name>-total} and {@code <name>-rate}. */
    public Sensor counter(String name) {
        return counter(name, Map.of());
    }

    /** Returns a counter sensor of one rule, tagged {@code rule}. */
    public Sensor counter(String name, String rule) {
        return counter(name, Map.of(RULE_TAG, rule));
    }

    /**
     * Returns a counter sensor of one kind of {@code name}, e.g. tagged {@code reason}: each tag becomes a label in
     * Prometheus.
     */
    public Sensor counter(String name, Map<String, String> extraTags) {
        Sensor sensor = sensor(name, extraTags);
        addCounter(sensor, name, tags(extraTags));
        sensors.add(sensor);
        return sensor;
    }

    /**
     * Returns the counter of {@value #PUNCTUATION_FAILURES} of this stream thread. It belongs to no task and is never
     * removed: a punctuation that throws fails its thread, and with it every task's sensors.
     */
    public Sensor punctuationFailures() {
        String thread = Thread.currentThread().getName();
        Sensor sensor =
                streamsMetrics.addSensor(SCOPE + "." + PUNCTUATION_FAILURES + "." + thread, RecordingLevel.INFO);
        addCounter(sensor, PUNCTUATION_FAILURES, Map.of("thread-id", thread));
        return sensor;
    }

    private static void addCounter(Sensor sensor, String name, Map<String, String> tags) {
        sensor.add(new MetricName(name + TOTAL, GROUP, help(name), tags), new Total(name));
        sensor.add(new MetricName(name + "-rate", GROUP, name + " per second", tags), new Rate());
    }

    /** What counter {@code name} counts, as its description and Prometheus' help say. */
    public static String help(String name) {
        return switch (name) {
            case DEAD_LETTERED -> "Records sent to the dead-letter topic";
            case PUNCTUATION_FAILURES -> "Punctuations that threw, each failing its stream thread";
            default -> "Total " + name;
        };
    }

    /**
     * A counter's total since its sensor was created: the sum of what was recorded, so that {@code record(n)} counts
     * n (a drop cancelling n documents). It names the counter, so that an exporter reads what it counts from the stat
     * rather than from the metric's name.
     */
    public static final class Total extends CumulativeSum {

        private final String name;

        Total(String name) {
            this.name = name;
        }

        /** The counter's name, e.g. {@value #SCHEDULED}. */
        public String name() {
            return name;
        }

        /** What it counts. */
        public String help() {
            return TtlMetrics.help(name);
        }
    }

    /**
     * Returns a sensor recording one rule's lag distribution in milliseconds, e.g. {@link #EXPIRY_LAG}: {@code
     * <base>-ms-p50}, {@code -p99} and {@code -max} over the last samples (about a minute), and since creation {@code
     * -count}, {@code -sum} and the cumulative {@link LagHistogram} buckets {@code -le-<ms>}.
     */
    public Sensor lag(String base, String what, String rule) {
        String name = base + "-ms";
        Map<String, String> all = tags(Map.of(RULE_TAG, rule));
        Sensor sensor = sensor(name, Map.of(RULE_TAG, rule));
        sensors.add(sensor);
        sensor.add(new Percentiles(
                LAG_PERCENTILES_BYTES,
                LAG_PERCENTILES_MAX_MS,
                BucketSizing.LINEAR,
                new Percentile(new MetricName(name + "-p50", GROUP, "Median " + what + " in ms", all), 50),
                new Percentile(new MetricName(name + "-p99", GROUP, "99th percentile " + what + " in ms", all), 99)));
        sensor.add(new LagHistogram(base, GROUP, what, all));
        return sensor;
    }

    private Sensor sensor(String name, Map<String, String> extraTags) {
        String qualifier = extraTags.isEmpty() ? "" : "." + String.join(".", new TreeMap<>(extraTags).values());
        String sensorName = SCOPE + "." + taskId + "." + name + qualifier;
        return streamsMetrics.addSensor(sensorName, RecordingLevel.INFO);
    }

    private Map<String, String> tags(Map<String, String> extraTags) {
        Map<String, String> all = new LinkedHashMap<>(tags);
        all.putAll(extraTags);
        return all;
    }

    @Override
    public void close() {
        sensors.forEach(streamsMetrics::removeSensor);
        sensors.clear();
    }
}
