package io.ttlstreams.processor;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.serde.ChangeEventSerde;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.ScheduleKey;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.topology.TtlTopology;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the expiry schedule and emits delete commands when deadlines pass.
 *
 * <p>For each document event it evaluates the TTL rules on the current document (latest value wins)
 * and moves the document's single schedule entry: the {@code index} store says where the old entry
 * is, so an update reschedules and a delete cancels with point lookups, never a scan. Namespace-wide
 * events (from the control topic) cancel every entry of the namespace scheduled before them, with a
 * prefix scan of the index, and are remembered in {@code namespace-epochs} so that older events of
 * that namespace arriving later from other partitions are not scheduled again.
 *
 * <p>A wall-clock punctuator range-scans the {@code schedule} store, ordered by deadline, from the
 * lowest key to "now" only: the cost is in the due entries, not in the size of the schedule. Each run
 * is bounded in entries and in time, and optionally throttled, so a backlog drains over several runs
 * while records keep being processed.
 */
public final class ExpirySchedulerProcessor implements Processor<String, ChangeEvent, String, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ExpirySchedulerProcessor.class);
    /** How many entries a punctuation emits between two looks at its time budget. */
    private static final int CLOCK_CHECK_EVERY = 64;

    private final SchedulerSettings settings;
    private final Optional<DeleteThrottle> throttle;
    private final long maxPunctuationNanos;
    private final ChangeEventSerde eventSerde = new ChangeEventSerde();

    private ProcessorContext<String, Object> context;
    private ExpirySchedule schedule;
    private KeyValueStore<String, Long> namespaceEpochs;
    /**
     * The namespace-epochs store in memory: it holds one entry per dropped namespace, is read for every
     * event and written only here, so two store reads per event become two map lookups.
     */
    private final Map<Namespace, Long> dropTimes = new HashMap<>();

    private TtlMetrics metrics;
    private Sensor scheduled;
    private Sensor cancelled;
    private Sensor emitted;
    private Sensor stale;
    private Sensor documentTtlIgnored;
    private Sensor deadLettered;
    private Sensor expiryLag;

    /**
     * @param settings rules, punctuation bounds and throttle
     */
    public ExpirySchedulerProcessor(SchedulerSettings settings) {
        this.settings = settings;
        this.throttle = settings.maxDeletesPerSecond().isPresent()
                ? Optional.of(new DeleteThrottle(settings.maxDeletesPerSecond().getAsDouble()))
                : Optional.empty();
        this.maxPunctuationNanos = settings.maxDurationPerPunctuation().toNanos();
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.schedule = new ExpirySchedule(
                context.getStateStore(ScheduleStores.SCHEDULE), context.getStateStore(ScheduleStores.INDEX));
        this.namespaceEpochs = context.getStateStore(ScheduleStores.NAMESPACE_EPOCHS);
        try (KeyValueIterator<String, Long> epochs = namespaceEpochs.all()) {
            epochs.forEachRemaining(epoch -> dropTimes.put(Namespace.valueOf(epoch.key), epoch.value));
        }
        this.metrics = TtlMetrics.forTask(context);
        this.scheduled = metrics.counter(TtlMetrics.SCHEDULED);
        this.cancelled = metrics.counter(TtlMetrics.CANCELLED);
        this.emitted = metrics.counter(TtlMetrics.EMITTED);
        this.stale = metrics.counter(TtlMetrics.STALE);
        this.documentTtlIgnored = metrics.counter(TtlMetrics.DOCUMENT_TTL_IGNORED);
        this.deadLettered = metrics.counter(TtlMetrics.DEAD_LETTERED);
        this.expiryLag = metrics.expiryLag();
        // Wall-clock time, not stream time: stream time only advances when records arrive, and
        // documents must expire at their deadline even when no change event arrives for hours.
        context.schedule(settings.punctuateInterval(), PunctuationType.WALL_CLOCK_TIME, this::expireDue);
    }

    @Override
    public void process(Record<String, ChangeEvent> record) {
        ChangeEvent event = record.value();
        if (event.isNamespaceWide()) {
            cancelNamespace(event);
        } else if (isOlderThanNamespaceDrop(event)) {
            stale.record();
        } else {
            try {
                reschedule(event);
            } catch (RuntimeException e) {
                // The rules are total functions, so this is a bug; the event is parked, not lost.
                LOG.warn(
                        "Could not evaluate the TTL rules for {} in {}; dead-lettered",
                        event.documentKeyJson(),
                        event.namespace(),
                        e);
                deadLettered.record();
                context.forward(
                        DeadLetters.of(record, eventJson(event), context.recordMetadata(), e), TtlTopology.DLQ_SINK);
            }
        }
    }

    private void reschedule(ChangeEvent event) {
        ExpiryDecision decision = decide(event);
        Bytes ref = DocumentRef.of(event.namespace(), event.documentKeyJson());
        if (decision != null && decision.expires()) {
            schedule.put(
                    ref,
                    decision.deadline().toEpochMilli(),
                    ScheduleEntries.scheduleEntry(event.documentKey(), decision),
                    clusterTimeOf(event));
            scheduled.record();
        } else if (schedule.remove(ref)) {
            cancelled.record();
        }
    }

    /** The rules' verdict on the event's document, or null when the document is gone. */
    private ExpiryDecision decide(ChangeEvent event) {
        if (event.operationType() == OperationType.DELETE || event.fullDocument() == null) {
            // A delete, or an update whose document was deleted before the connector's lookup.
            return null;
        }
        ExpiryDecision decision = settings.rules().evaluate(event.namespace(), event.fullDocument(), event.eventTime());
        if (decision.documentTtlIgnored()) {
            documentTtlIgnored.record();
        }
        return decision;
    }

    private boolean isOlderThanNamespaceDrop(ChangeEvent event) {
        Long clusterTime = clusterTimeOf(event);
        if (clusterTime == null) {
            return false;
        }
        Long collectionDrop = dropTimes.get(event.namespace());
        Long databaseDrop = dropTimes.get(event.namespace().databaseNamespace());
        return (collectionDrop != null && clusterTime <= collectionDrop)
                || (databaseDrop != null && clusterTime <= databaseDrop);
    }

    /**
     * Cancels every entry of the namespace (a whole database for dropDatabase) that was scheduled by
     * an event no later than this one. Later entries belong to a re-created namespace and stay.
     */
    private void cancelNamespace(ChangeEvent event) {
        Long dropTime = clusterTimeOf(event);
        Bytes prefix = event.operationType() == OperationType.DROP_DATABASE
                ? DocumentRef.databasePrefix(event.namespace())
                : DocumentRef.collectionPrefix(event.namespace());
        int count = schedule.removeAll(prefix, dropTime);
        cancelled.record(count);
        if (dropTime != null) {
            Long known = dropTimes.get(event.namespace());
            if (known == null || known < dropTime) {
                namespaceEpochs.put(event.namespace().toString(), dropTime);
                dropTimes.put(event.namespace(), dropTime);
            }
        }
        LOG.info(
                "{} of {}: cancelled {} scheduled expiries in task {}",
                event.operationType(),
                event.namespace(),
                count,
                context.taskId());
    }

    /**
     * Emits a delete command for each entry whose deadline is at or before {@code now}, oldest first,
     * within this run's budget; what is left stays due for the next run.
     */
    private void expireDue(long now) {
        int budget = settings.maxEntriesPerPunctuation();
        if (throttle.isPresent()) {
            budget = Math.min(budget, throttle.get().available(now));
        }
        if (budget <= 0) {
            return;
        }
        long started = settings.nanoClock().getAsLong();
        int count = 0;
        try (KeyValueIterator<Bytes, ScheduleEntry> due = schedule.due(now)) {
            boolean outOfTime = false;
            while (count < budget && !outOfTime && due.hasNext()) {
                KeyValue<Bytes, ScheduleEntry> entry = due.next();
                emit(entry.key, entry.value, now);
                // Deleting behind a RocksDB iterator is safe: the iterator reads a consistent view.
                schedule.removeDue(entry.key);
                count++;
                outOfTime = count % CLOCK_CHECK_EVERY == 0
                        && settings.nanoClock().getAsLong() - started >= maxPunctuationNanos;
            }
            if (!due.hasNext()) {
                schedule.drained(now);
            }
        }
        if (count > 0) {
            if (throttle.isPresent()) {
                throttle.get().consume(count);
            }
            LOG.debug("Punctuation at {} emitted {} delete commands", now, count);
        }
    }

    /** Emits the delete command (and audit event) of one due entry; its key holds deadline and document. */
    private void emit(Bytes scheduleKey, ScheduleEntry entry, long now) {
        Bytes ref = ScheduleKey.documentRefOf(scheduleKey);
        Namespace namespace = DocumentRef.namespaceOf(ref);
        String documentKey = DocumentRef.documentKeyJsonOf(ref);
        long deadline = ScheduleKey.deadlineOf(scheduleKey);
        DeleteCommand command = ScheduleEntries.command(BsonDocument.parse(documentKey), namespace, deadline, entry);
        context.forward(new Record<String, Object>(command.keyJson(), command, now), TtlTopology.DELETES_SINK);
        if (settings.auditEnabled()) {
            context.forward(
                    new Record<String, Object>(
                            documentKey,
                            new ExpiryEvent(
                                    namespace.toString(),
                                    documentKey,
                                    entry.getRule(),
                                    Instant.ofEpochMilli(deadline),
                                    Instant.ofEpochMilli(now)),
                            now),
                    TtlTopology.AUDIT_SINK);
        }
        emitted.record();
        expiryLag.record(now - deadline, now);
        settings.listener().emitted(entry.getRule(), now - deadline);
    }

    private String eventJson(ChangeEvent event) {
        return new String(eventSerde.serializer().serialize(null, event), StandardCharsets.UTF_8);
    }

    private static Long clusterTimeOf(ChangeEvent event) {
        BsonTimestamp clusterTime = event.clusterTime();
        return clusterTime == null ? null : clusterTime.getValue();
    }

    @Override
    public void close() {
        if (metrics != null) {
            metrics.close();
        }
    }
}
