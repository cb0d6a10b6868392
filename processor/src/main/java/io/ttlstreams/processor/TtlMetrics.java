package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.api.ProcessingContext;

/**
 * The one place ttl-streams records its events: Micrometer meters, each registered once per task (tag {@value
 * #TASK_TAG}, plus {@value #RULE_TAG} or {@value #REASON_TAG} where it is per rule or per reason) and resolved when
 * the processor starts, so that recording is one call on a meter the caller holds. The registry comes from Kafka
 * Streams' configs ({@value #REGISTRY_CONFIG}); the application's registry exports them to {@code GET /metrics} and JMX
 * ({@code io.ttlstreams.metrics.PrometheusMetrics}). A counter {@code documents-scheduled} is the meter {@code
 * ttl.documents.scheduled}, {@code ttl_documents_scheduled_total} in Prometheus; a lag {@code expiry-lag} the timer
 * {@code ttl.expiry.lag}, the histogram {@code ttl_expiry_lag_seconds}.
 *
 * <p>Adding a metric: a name constant here and a {@link #counter} (or {@link #lag}) call where it is recorded (for
 * the scheduler, a field of {@code Outcomes}); JMX and Prometheus see it with no further change.
 *
 * <p>Each processor instance owns one {@code TtlMetrics} and removes its task's meters when it closes, so that a task
 * that moves away stops reporting here; the processors of one task share its meters.
 */
public final class TtlMetrics implements AutoCloseable {

    /**
     * Not an option: the key under which Kafka Streams' configs carry the {@link MeterRegistry} that the processors
     * record into. Without it (a test or benchmark building its own Kafka Streams), Micrometer's global registry,
     * which discards what is recorded unless a registry is added to it.
     */
    public static final String REGISTRY_CONFIG = "ttl.meter.registry";
    /** The tag naming the task, e.g. {@code 0_0}. */
    public static final String TASK_TAG = "task";
    /** The tag naming the rule, on the per-rule meters. */
    public static final String RULE_TAG = "rule";
    /** The tag naming the reason, on the per-reason meters (such as {@link #SINK_DEAD_LETTERS}). */
    public static final String REASON_TAG = "reason";
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
    /**
     * Counter, per instance (Kafka Streams' handler counts it, outside the tasks whose meters go when they move):
     * records the producer failed to send, which {@code SendFailureHandler} had dead-lettered, or dropped if a dead
     * letter itself.
     */
    public static final String SEND_FAILURES = "send-failures";
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
    /**
     * Counter, per instance (not per task) and {@value #REASON_TAG}: automatic resyncs of one collection after a rewrite
     * ({@code io.ttlstreams.resync.RewriteResync}): reason {@code replaced}, {@code created} or {@code too-large} (left
     * out, over its size bound).
     */
    public static final String RESYNCS_AUTOMATIC = "resyncs-automatic";
    /** Counter, per instance: checks of the rules' collections for a rewrite, done. */
    public static final String REWRITE_CHECKS = "rewrite-checks";
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
    /**
     * Counter: documents read again by {@code _id} because an update's event came without its document (its lookup
     * found nothing under the event's {@code documentKey}, as after a shard key change), so that they are scheduled.
     */
    public static final String LOOKUP_REREADS = "lookup-rereads";
    /** Counter: such reads not asked, the task's or the read-back's queue being full: left to a resync. */
    public static final String LOOKUP_REREADS_DROPPED = "lookup-rereads-dropped";
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
     * Counter, per {@code reason}: delete commands the sink connector dead-lettered to {@code ttl.sink.dlq}: refused
     * by the sink guard or rejected by MongoDB, which deleted nothing, or failed for a reason not their own (a
     * write-concern error, an unreachable MongoDB), which their confirmation decides.
     */
    public static final String SINK_DEAD_LETTERS = "sink-dead-letters";
    /**
     * Counter: punctuations whose due delete commands the outage pacer held back for later ones, while the sink did
     * not write or recovered ({@code EmissionPacer}).
     */
    public static final String EMISSIONS_PACED = "emissions-paced";
    /** Distribution, per rule: delete command emitted minus deadline (see {@link #lag}). */
    public static final String EXPIRY_LAG = "expiry-lag";
    /** Distribution, per rule: the change stream's delete event minus the deadline, for confirmed deletes. */
    public static final String CONFIRMED_LAG = "confirmed-lag";

    /**
     * The lag histograms' bucket bounds: fine where the lag lives normally (tens to hundreds of ms), coarse where it
     * lives during an outage, up to a day so that quantiles still mean something after one. Dashboards and alerts
     * read them ({@code le}), so they stay as they are.
     */
    private static final Duration[] LAG_BUCKETS = {
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2_500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofMinutes(1),
        Duration.ofMinutes(5),
        Duration.ofMinutes(15),
        Duration.ofMinutes(30),
        Duration.ofHours(1),
        Duration.ofHours(2),
        Duration.ofHours(6),
        Duration.ofHours(12),
        Duration.ofDays(1)
    };

    /** The lags' windowed maximum and percentiles cover the last 30 to 60 s: two windows of 30 s. */
    private static final Duration LAG_WINDOW = Duration.ofMinutes(1);

    private static final int LAG_WINDOWS = 2;

    private final MeterRegistry registry;
    private final Tags tags;
    private final List<Meter> meters = new ArrayList<>();

    private TtlMetrics(MeterRegistry registry, String taskId) {
        this.registry = registry;
        this.tags = Tags.of(TASK_TAG, taskId);
    }

    /** Metrics of the task the given processor context belongs to, in the registry its configs carry. */
    public static TtlMetrics forTask(ProcessingContext context) {
        return forTask(registry(context.appConfigs()), context.taskId().toString());
    }

    /**
     * The registry that Kafka Streams' {@code configs} carry ({@value #REGISTRY_CONFIG}), as the processors and the
     * exception handlers are given them; Micrometer's global registry without one.
     */
    public static MeterRegistry registry(Map<String, ?> configs) {
        return configs.get(REGISTRY_CONFIG) instanceof MeterRegistry registry ? registry : Metrics.globalRegistry;
    }

    /** Metrics of task {@code taskId} in {@code registry}. */
    public static TtlMetrics forTask(MeterRegistry registry, String taskId) {
        return new TtlMetrics(registry, taskId);
    }

    /** The meter name of counter or lag {@code name}: {@code ttl.documents.scheduled} for {@value #SCHEDULED}. */
    public static String meterName(String name) {
        return "ttl." + name.replace('-', '.');
    }

    /** Returns counter {@code name} of this task. */
    public Counter counter(String name) {
        return counter(name, Map.of());
    }

    /** Returns counter {@code name} of one rule, tagged {@value #RULE_TAG}. */
    public Counter counter(String name, String rule) {
        return counter(name, Map.of(RULE_TAG, rule));
    }

    /** Returns counter {@code name} of one kind, e.g. tagged {@value #REASON_TAG}: each tag a label in Prometheus. */
    public Counter counter(String name, Map<String, String> extraTags) {
        return owned(counter(registry, name, tags.and(tags(extraTags))));
    }

    /**
     * The counter {@code name} of this instance, belonging to no task, with {@code extraTags} (e.g. {@value
     * #REASON_TAG}): for what runs beside the stream threads, such as {@link #RESYNCS_AUTOMATIC}.
     */
    public static Counter instanceCounter(MeterRegistry registry, String name, Map<String, String> extraTags) {
        return counter(registry, name, tags(extraTags));
    }

    private static Tags tags(Map<String, String> tags) {
        return Tags.of(tags.entrySet().stream()
                .map(tag -> Tag.of(tag.getKey(), tag.getValue()))
                .toList());
    }

    private static Counter counter(MeterRegistry registry, String name, Tags tags) {
        return Counter.builder(meterName(name))
                .description(help(name))
                .tags(tags)
                .register(registry);
    }

    /** What counter {@code name} counts, as its description and Prometheus' help say. */
    public static String help(String name) {
        return switch (name) {
            case DEAD_LETTERED -> "Records sent to the dead-letter topic";
            case PUNCTUATION_FAILURES -> "Punctuations that threw, each failing its stream thread";
            case SEND_FAILURES -> "Records the producer failed to send";
            case RESYNCS_AUTOMATIC -> "Automatic resyncs of one collection after it was replaced or re-created";
            case REWRITE_CHECKS -> "Checks of the rules' collections for a replacement or re-creation";
            default -> "Total " + name;
        };
    }

    /**
     * Returns one rule's lag distribution, e.g. {@link #EXPIRY_LAG}: a timer with the buckets of {@link #LAG_BUCKETS}
     * since the task was assigned, and its median, 99th percentile and maximum over the last 30 to 60 s (the status
     * line's figures). Record a negative lag (a document deleted early by someone else) as 0.
     *
     * @param what what is recorded, for the description
     */
    public Timer lag(String base, String what, String rule) {
        return owned(Timer.builder(meterName(base))
                .description("Recordings of " + what)
                .tags(tags.and(RULE_TAG, rule))
                .serviceLevelObjectives(LAG_BUCKETS)
                .publishPercentiles(0.5, 0.99)
                .distributionStatisticExpiry(LAG_WINDOW)
                .distributionStatisticBufferLength(LAG_WINDOWS)
                .register(registry));
    }

    private <M extends Meter> M owned(M meter) {
        meters.add(meter);
        return meter;
    }

    /** Removes this task's meters from the registry. */
    @Override
    public void close() {
        meters.forEach(registry::remove);
        meters.clear();
    }
}
