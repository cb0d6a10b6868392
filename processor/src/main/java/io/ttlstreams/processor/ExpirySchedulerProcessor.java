package io.ttlstreams.processor;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.EventTimeWindow;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.readback.ReadBackInbox;
import io.ttlstreams.readback.ReadRequest;
import io.ttlstreams.readback.ReadResult;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.rules.TtlMode;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.RuleVersion;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.serde.ChangeEventSerde;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.ScheduleKey;
import io.ttlstreams.state.ScheduleKey.Timeline;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.topology.TtlTopology;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the expiry schedule, emits delete commands when deadlines pass, and follows each command until the change
 * stream confirms the delete.
 *
 * <p>For each document event it evaluates the TTL rules on the current document (latest value wins) and moves the
 * document's single schedule entry: the {@code index} store says where the entry is, so an update reschedules and a
 * delete cancels with point lookups, never a scan; an update that leaves the entry exactly as it was writes nothing.
 * Namespace-wide events (from the control topic) cancel every entry of the namespace changed before them, with a
 * prefix scan of the index, and are remembered in {@code namespace-epochs} so that older events of that namespace
 * arriving later from other partitions are not scheduled again.
 *
 * <p>A wall-clock punctuator range-scans each {@link Timeline timeline} of the {@code schedule} store from its lowest
 * key to "now" only: the cost is in the due entries, not in the size of the schedule. A due deadline emits the delete
 * command and moves the entry to the confirmations timeline; the document's delete event confirms it; a
 * confirmation that does not come in time emits the command again, with a doubling wait, until the attempts are
 * spent. Each run is bounded in entries and in time, and throttled when asked, so a backlog drains over several runs
 * while records keep being processed.
 *
 * <p>With read-back ({@link SchedulerSettings#readBack()}), a confirmation that does not come in time first asks
 * MongoDB what the document holds, off the stream thread, and the entry waits one more confirmation timeout for the
 * answer, which a later punctuation applies ({@link ReadBackVerdict}): a document gone is confirmed, one holding the
 * entry's values gets its command again, one holding other values gets the deadline they give. So an event claiming
 * values the document does not hold delays its delete by a confirmation timeout, never cancels it. A read that fails
 * or goes unanswered falls back to emitting the command again.
 *
 * <p>Before a command goes out, the entry is checked against the current rules: an entry of a removed rule is
 * cancelled, one whose rule changed shape is held until its document is evaluated again, and one whose rule changed
 * only its offset gets its deadline recomputed from its stored base. After a restart with changed rules, a walk over
 * the whole schedule, a bounded slice per punctuation, does the same for entries not yet due.
 */
public final class ExpirySchedulerProcessor implements Processor<String, ChangeEvent, String, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ExpirySchedulerProcessor.class);
    /** How many entries a punctuation handles between two looks at its time budget. */
    private static final int CLOCK_CHECK_EVERY = 64;

    private final SchedulerSettings settings;
    private final DeadLetters deadLetters;
    private final long maxPunctuationNanos;
    private final CommandSizeBound commandBound;
    private final ChangeEventSerde eventSerde = new ChangeEventSerde();

    private ProcessorContext<String, Object> context;
    private ExpirySchedule schedule;
    private KeyValueStore<String, Long> namespaceEpochs;
    private KeyValueStore<String, RuleVersion> ruleVersions;
    private Optional<DeleteThrottle> throttle;
    /**
     * The namespace-epochs store in memory: it holds one entry per dropped namespace, is read for every event and
     * written only here, so two store reads per event become two map lookups.
     */
    private final Map<Namespace, Long> dropTimes = new HashMap<>();
    /** Where the walk reconciling the schedule with changed rules goes on; null when there is none to do. */
    private Bytes walkCursor;
    /**
     * Whether the first punctuation is still to compare the rules with those the schedule was reconciled with: there,
     * inside a transaction, rather than in {@link #init}, which runs before the task's first transaction.
     */
    private boolean rulesToCompare;
    /** What reconciling with the current rules did, per rule, since the last summary was logged. */
    private final Map<String, RuleChanges> ruleChanges = new TreeMap<>();

    private TtlMetrics metrics;
    private Sensor scheduled;
    private Sensor cancelled;
    private Sensor unchanged;
    private Sensor emitted;
    private Sensor reemitted;
    private Sensor confirmed;
    private Sensor unconfirmed;
    private Sensor dryRuns;
    private Sensor stale;
    private Sensor resyncStale;
    private Sensor documentTtlIgnored;
    private Sensor deadLettered;
    private Sensor ruleRemoved;
    private Sensor held;
    private Sensor rescheduled;
    private Sensor expiryLag;
    private Sensor confirmedLag;
    private Sensor readBacks;
    private Sensor confirmedByRead;
    private Sensor rescheduledByRead;
    private Sensor readBacksFailed;
    /** Answers of the read-back thread for this task; drained by the punctuator. */
    private final ReadBackInbox inbox = new ReadBackInbox();
    /**
     * The read asked for each document awaiting one: an answer to any other is stale. In memory only: after a restart
     * an entry is simply read again when it comes overdue.
     */
    private final Map<Bytes, ReadRequest> pendingReads = new HashMap<>();

    /**
     * @param settings rules, punctuation bounds, throttle, confirmation
     * @param deadLetters builds the dead letters of events that cannot be applied, sized for the producer
     */
    public ExpirySchedulerProcessor(SchedulerSettings settings, DeadLetters deadLetters) {
        this.settings = settings;
        this.deadLetters = deadLetters;
        this.maxPunctuationNanos = settings.maxDurationPerPunctuation().toNanos();
        this.commandBound = new CommandSizeBound(settings.maxRecordBytes());
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
        this.ruleVersions = context.getStateStore(ScheduleStores.RULE_VERSIONS);
        this.rulesToCompare = true;
        this.throttle = settings.maxDeletesPerSecond().isPresent()
                ? Optional.of(new DeleteThrottle(
                        throttleShare(settings.maxDeletesPerSecond().getAsInt())))
                : Optional.empty();
        this.metrics = TtlMetrics.forTask(context);
        this.scheduled = metrics.counter(TtlMetrics.SCHEDULED);
        this.cancelled = metrics.counter(TtlMetrics.CANCELLED);
        this.unchanged = metrics.counter(TtlMetrics.UNCHANGED);
        this.emitted = metrics.counter(TtlMetrics.EMITTED);
        this.reemitted = metrics.counter(TtlMetrics.REEMITTED);
        this.confirmed = metrics.counter(TtlMetrics.CONFIRMED);
        this.unconfirmed = metrics.counter(TtlMetrics.UNCONFIRMED);
        this.dryRuns = metrics.counter(TtlMetrics.DRY_RUN);
        this.stale = metrics.counter(TtlMetrics.STALE);
        this.resyncStale = metrics.counter(TtlMetrics.RESYNC_STALE);
        this.documentTtlIgnored = metrics.counter(TtlMetrics.DOCUMENT_TTL_IGNORED);
        this.deadLettered = metrics.counter(TtlMetrics.DEAD_LETTERED);
        this.ruleRemoved = metrics.counter(TtlMetrics.RULE_REMOVED);
        this.held = metrics.counter(TtlMetrics.HELD);
        this.rescheduled = metrics.counter(TtlMetrics.RESCHEDULED);
        this.expiryLag = metrics.lag(TtlMetrics.EXPIRY_LAG_MS, "expiry lag (command emitted minus deadline)");
        this.confirmedLag = metrics.lag(TtlMetrics.CONFIRMED_LAG_MS, "confirmed lag (delete event minus deadline)");
        if (settings.readBack().isPresent()) {
            this.readBacks = metrics.counter(TtlMetrics.READ_BACKS);
            this.confirmedByRead = metrics.counter(TtlMetrics.CONFIRMED_BY_READ);
            this.rescheduledByRead = metrics.counter(TtlMetrics.RESCHEDULED_BY_READ);
            this.readBacksFailed = metrics.counter(TtlMetrics.READ_BACKS_FAILED);
        }
        // Wall-clock time, not stream time: stream time only advances when records arrive, and documents must
        // expire at their deadline even when no change event arrives for hours.
        context.schedule(settings.punctuateInterval(), PunctuationType.WALL_CLOCK_TIME, this::punctuate);
    }

    /**
     * This task's whole share of the application-wide limit. A source topic given more partitions while the
     * application runs brings tasks beyond the count the shares were split for: failing their initialisation would
     * stop expiry for good, so such a task gets the smallest share, 1 per second, and the application may exceed the
     * limit by that much until a restart splits it again (start-up then checks the limit against the new count).
     */
    private int throttleShare(int limit) {
        int partition = context.taskId().partition();
        if (partition < settings.partitions()) {
            return DeleteThrottle.share(limit, settings.partitions(), partition);
        }
        LOG.warn(
                "Task {}: the source topics have more partitions than the {} ttl.max.deletes.per.second was split"
                        + " over at start-up; this task deletes at most 1 per second until a restart",
                context.taskId(),
                settings.partitions());
        return 1;
    }

    @Override
    public void process(Record<String, ChangeEvent> record) {
        ChangeEvent event = record.value();
        try {
            if (event.isNamespaceWide()) {
                cancelNamespace(event);
            } else if (isOlderThanNamespaceDrop(event)) {
                stale.record();
            } else {
                apply(event, record.timestamp());
            }
        } catch (RuntimeException | Error e) {
            if (!DeadLetters.isCausedByRecord(e)) {
                throw e;
            }
            // The rules are total functions, so this is a bug, or a document beyond what they can handle (a stack
            // overflow on a pathologically nested document): the event is parked, not lost, and the task goes on.
            LOG.warn(
                    "Could not apply a {} event of {} in task {}; dead-lettered",
                    event.operationType(),
                    event.namespace(),
                    context.taskId(),
                    e);
            deadLettered.record();
            context.forward(
                    deadLetters.letter(record, eventJson(event), context.recordMetadata(), e), TtlTopology.DLQ_SINK);
        }
    }

    /**
     * Applies one document's change (or resync) to its schedule entry.
     *
     * @param recordTimestamp when the source connector published the event, which is after it looked the document
     *     up
     */
    private void apply(ChangeEvent event, long recordTimestamp) {
        Bytes ref = DocumentRef.of(event.namespace(), event.documentKey());
        IndexEntry position = schedule.position(ref);
        Long clusterTime = clusterTimeOf(event);
        boolean resync = event.operationType() == OperationType.RESYNC;
        if (resync && position != null && isNotNewer(clusterTime, position.getSourceClusterTime())) {
            resyncStale.record();
            return;
        }
        if (event.operationType() == OperationType.DELETE) {
            deleted(ref, position, event);
            return;
        }
        if (event.fullDocument() == null) {
            // An update whose document was deleted before the connector's lookup: the delete event follows and
            // confirms an awaited command; anything else has nothing left to expire.
            if (position != null && timelineOf(position) != Timeline.CONFIRMATIONS) {
                unschedule(ref, position);
            }
            return;
        }
        Instant changeTime = changeTime(event, recordTimestamp);
        ExpiryDecision decision = resync
                ? settings.rules().evaluateResync(event.namespace(), event.fullDocument(), changeTime)
                : settings.rules().evaluate(event.namespace(), event.fullDocument(), changeTime);
        if (decision.documentTtlIgnored()) {
            documentTtlIgnored.record();
        }
        if (!decision.expires()) {
            if (position != null) {
                unschedule(ref, position);
            }
            return;
        }
        TtlRule rule = settings.rules().rule(decision.rule()).orElseThrow();
        ScheduleEntry entry = ScheduleEntries.of(decision, rule);
        if (position != null && keepsCurrentEntry(event, rule, decision, position, entry)) {
            unchanged.record();
            return;
        }
        OptionalInt commandBytes = commandBound.excess(ref, entry);
        if (commandBytes.isPresent()) {
            // Never stored: its command could not be sent. The entry it would replace pins values gone from the
            // document, so it goes too; the event is dead-lettered with the size.
            if (position != null) {
                unschedule(ref, position);
            }
            throw new IllegalArgumentException(commandBound.refusal(commandBytes.getAsInt()));
        }
        ScheduleEntry superseded = position != null && timelineOf(position) == Timeline.CONFIRMATIONS
                ? schedule.entryAt(ref, position)
                : null;
        schedule.put(ref, position, Timeline.DEADLINES, decision.deadline().toEpochMilli(), entry, clusterTime);
        scheduled.record();
        if (superseded != null) {
            audit(
                    ref,
                    superseded,
                    ExpiryOutcome.SUPERSEDED,
                    context.currentSystemTimeMs(),
                    superseded.getAttempts(),
                    null);
        }
    }

    /**
     * The time a last-modified rule counts from (for a resync without a date witness too): the later of the event's
     * time and its record's. An update's {@code fullDocument} is looked up when the source connector reads the event
     * ({@code updateLookup}), which, when the connector lags, can be long after the change: the document's witness and
     * ttl values are then those of the lookup, and pairing them with the older event time would put a deadline in the
     * past while the document may have been modified since (the newer event still on its way), so that the delete's
     * filter matches a document just renewed. And an event's time is only what the event claims: an insert (or a
     * resync's read time) stamped years back would make the deadline of a document without a witness due at once.
     * The record's time, when the connector published the event, comes after the change and the lookup: counting
     * from the later of the two makes a lagging source or a forged time delay a deadline, never advance it.
     */
    private static Instant changeTime(ChangeEvent event, long recordTimestamp) {
        Instant published = Instant.ofEpochMilli(recordTimestamp);
        return published.isAfter(event.eventTime()) ? published : event.eventTime();
    }

    /**
     * Whether the document's current entry stays as it is: the event changed nothing the entry was computed from
     * (same fingerprint) — never for an insert, which may be a re-created document after a drop whose event has not
     * arrived yet, so its entry must record the insert's clusterTime — or it is a resync that would move a
     * last-modified deadline earlier or disturb a command already on its way.
     */
    private boolean keepsCurrentEntry(
            ChangeEvent event, TtlRule rule, ExpiryDecision decision, IndexEntry position, ScheduleEntry entry) {
        if (event.operationType() == OperationType.RESYNC) {
            if (timelineOf(position) == Timeline.CONFIRMATIONS) {
                return true;
            }
            if (rule.mode() == TtlMode.LAST_MODIFIED
                    && timelineOf(position) == Timeline.DEADLINES
                    && decision.deadline().toEpochMilli() < position.getDueAt().toEpochMilli()) {
                return true;
            }
        }
        return event.operationType() != OperationType.INSERT
                && position.getFingerprint() == ExpirySchedule.fingerprint(entry);
    }

    /** A delete event: it confirms an awaited delete command, or cancels a pending deadline. */
    private void deleted(Bytes ref, IndexEntry position, ChangeEvent event) {
        if (position == null) {
            return;
        }
        ScheduleEntry entry = schedule.entryAt(ref, position);
        schedule.remove(ref);
        if (timelineOf(position) != Timeline.CONFIRMATIONS || entry == null) {
            cancelled.record();
            return;
        }
        long now = context.currentSystemTimeMs();
        long lag = Math.max(0, event.eventTime().toEpochMilli() - ScheduleEntries.deadlineOf(entry));
        confirmed.record();
        confirmedLag.record(lag, now);
        settings.listener().confirmed(entry.getRule(), lag);
        audit(ref, entry, ExpiryOutcome.CONFIRMED, now, entry.getAttempts(), lag);
    }

    /** The document no longer expires (or is gone): its entry goes; an awaited command is superseded. */
    private void unschedule(Bytes ref, IndexEntry position) {
        ScheduleEntry entry = timelineOf(position) == Timeline.CONFIRMATIONS ? schedule.entryAt(ref, position) : null;
        schedule.remove(ref);
        cancelled.record();
        if (entry != null) {
            audit(ref, entry, ExpiryOutcome.SUPERSEDED, context.currentSystemTimeMs(), entry.getAttempts(), null);
        }
    }

    private boolean isOlderThanNamespaceDrop(ChangeEvent event) {
        Long clusterTime = clusterTimeOf(event);
        if (clusterTime == null) {
            return false;
        }
        Long collectionDrop = dropTime(event.namespace());
        Long databaseDrop = dropTime(event.namespace().databaseNamespace());
        return isNotNewer(clusterTime, collectionDrop) || isNotNewer(clusterTime, databaseDrop);
    }

    /**
     * The namespace's drop epoch, unless it lies more than {@link EventTimeWindow#MAX_FUTURE_SKEW} after the
     * processor's clock: no event whose times were checked can have set it (a forged clusterTime stored by a version
     * that did not check them), and kept, it would make every later event of the namespace look older than the drop,
     * for good. Such an epoch is removed, so the namespace heals at its next event.
     */
    private Long dropTime(Namespace namespace) {
        Long epoch = dropTimes.get(namespace);
        // A BSON timestamp's seconds, unsigned, are its upper 32 bits.
        if (epoch == null
                || (epoch >>> 32) * 1000
                        <= context.currentSystemTimeMs() + EventTimeWindow.MAX_FUTURE_SKEW.toMillis()) {
            return epoch;
        }
        LOG.warn(
                "Task {}: ignoring and removing the drop epoch of {}, clusterTime {}, which lies beyond any plausible"
                        + " event time",
                context.taskId(),
                namespace,
                new BsonTimestamp(epoch));
        namespaceEpochs.delete(namespace.toString());
        dropTimes.remove(namespace);
        return null;
    }

    /**
     * Cancels every entry of the namespace (a whole database for dropDatabase) that was changed by an event no later
     * than this one. Later entries belong to a re-created namespace and stay.
     */
    private void cancelNamespace(ChangeEvent event) {
        Long dropTime = clusterTimeOf(event);
        Bytes prefix = event.operationType() == OperationType.DROP_DATABASE
                ? DocumentRef.databasePrefix(event.namespace())
                : DocumentRef.collectionPrefix(event.namespace());
        int count = schedule.removeAll(prefix, dropTime);
        cancelled.record(count);
        if (dropTime != null) {
            Long known = dropTime(event.namespace());
            if (known == null || Long.compareUnsigned(known, dropTime) < 0) {
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
     * Goes on with the rule walk if one is pending, then handles what is due at {@code now} — answers of read-backs
     * first, so that a deadline they find due goes out in this run, then deadlines, then confirmations that did not
     * come — within this run's budget; what is left waits for the next run.
     */
    private void punctuate(long now) {
        int budget = settings.maxEntriesPerPunctuation();
        if (throttle.isPresent()) {
            budget = Math.min(budget, throttle.get().available(now));
        }
        long started = settings.nanoClock().getAsLong();
        if (rulesToCompare) {
            rulesToCompare = false;
            compareRules();
        }
        // The walk first: what it finds due under changed rules goes out in this very run.
        if (walkCursor != null) {
            walk(now, new Budget(settings.maxEntriesPerPunctuation(), started));
        }
        Budget run = new Budget(budget, started);
        readBackAnswers(now, run);
        drain(Timeline.DEADLINES, now, run);
        drain(Timeline.CONFIRMATIONS, now, run);
        throttle.ifPresent(t -> t.consume(now, run.commands));
        if (run.commands > 0) {
            LOG.debug("Punctuation at {} in task {} emitted {} delete commands", now, context.taskId(), run.commands);
        }
    }

    /** What one punctuation may still do, and what it did. */
    private final class Budget {
        private final int entries;
        private final long startedNanos;
        private int handled;
        private int commands;

        Budget(int entries, long startedNanos) {
            this.entries = entries;
            this.startedNanos = startedNanos;
        }

        boolean left() {
            if (handled >= entries) {
                return false;
            }
            return handled % CLOCK_CHECK_EVERY != 0
                    || handled == 0
                    || settings.nanoClock().getAsLong() - startedNanos < maxPunctuationNanos;
        }
    }

    private void drain(Timeline timeline, long now, Budget run) {
        try (KeyValueIterator<Bytes, ScheduleEntry> due = schedule.due(timeline, now)) {
            while (run.left() && due.hasNext()) {
                KeyValue<Bytes, ScheduleEntry> next = due.next();
                if (timeline == Timeline.DEADLINES) {
                    deadlinePassed(next.key, next.value, now, run);
                } else {
                    confirmationOverdue(next.key, next.value, now, run);
                }
                schedule.passed(next.key);
                run.handled++;
            }
            if (!due.hasNext()) {
                schedule.drained(timeline, now);
            }
        }
    }

    /** A deadline passed: the command goes out (unless the rules changed meanwhile), and awaits confirmation. */
    private void deadlinePassed(Bytes key, ScheduleEntry entry, long now, Budget run) {
        entry = reconcileDeadline(key, entry, now, true);
        if (entry == null || isTooLargeToSend(key, entry)) {
            return;
        }
        if (settings.dryRun()) {
            schedule.removeAt(key);
            dryRuns.record();
            audit(ScheduleKey.documentRefOf(key), entry, ExpiryOutcome.DRY_RUN, now, 0, null);
            return;
        }
        ScheduleEntry sent = send(key, entry, now, run);
        long deadline = ScheduleEntries.deadlineOf(entry);
        emitted.record();
        expiryLag.record(now - deadline, now);
        settings.listener().emitted(entry.getRule(), now - deadline);
        schedule.move(key, Timeline.CONFIRMATIONS, now + settings.confirmWaitMillis(sent.getAttempts()), sent);
    }

    /**
     * Whether the entry's command is over the record bound, in which case the entry goes: one stored before entries
     * were checked when scheduled would otherwise fail every punctuation that tries to send it.
     */
    private boolean isTooLargeToSend(Bytes key, ScheduleEntry entry) {
        Bytes ref = ScheduleKey.documentRefOf(key);
        OptionalInt commandBytes = commandBound.excess(ref, entry);
        if (commandBytes.isEmpty()) {
            return false;
        }
        schedule.removeAt(key);
        deadLettered.record();
        LOG.warn(
                "Task {}: the entry of a document in {} (rule {}) is dropped: {}",
                context.taskId(),
                DocumentRef.namespaceOf(ref),
                entry.getRule(),
                commandBound.refusal(commandBytes.getAsInt()));
        return true;
    }

    /**
     * No delete event came in time: the document is read back, or, without read-back, the same command goes out again,
     * or, after the last attempt, the entry goes.
     */
    private void confirmationOverdue(Bytes key, ScheduleEntry entry, long now, Budget run) {
        Bytes ref = ScheduleKey.documentRefOf(key);
        if (settings.rules().rule(entry.getRule()).isEmpty()) {
            schedule.removeAt(key);
            ruleRemoved(ref, entry, now);
            return;
        }
        if (settings.readBack().isPresent() && readBackAsked(key, ref, entry, now)) {
            return;
        }
        retryOrGiveUp(key, ref, entry, now, run);
    }

    /**
     * Asks the read-back service for the document, and moves its entry one confirmation timeout on to await the
     * answer. Returns false, to retry as without read-back, when the service refuses the request or the entry's
     * previous read went unanswered for that long.
     */
    private boolean readBackAsked(Bytes key, Bytes ref, ScheduleEntry entry, long now) {
        ReadRequest previous = pendingReads.remove(ref);
        if (previous != null && previous.isFor(entry)) {
            readBacksFailed.record();
            return false;
        }
        ReadRequest request = ReadRequest.of(ref, entry, inbox);
        if (!settings.readBack().orElseThrow().submit(request)) {
            readBacksFailed.record();
            return false;
        }
        readBacks.record();
        pendingReads.put(ref, request);
        schedule.move(key, Timeline.CONFIRMATIONS, now + settings.confirmWaitMillis(1), entry);
        return true;
    }

    /** Applies the read-backs' answers that came for this task; an answer for an entry that changed is dropped. */
    private void readBackAnswers(long now, Budget run) {
        while (run.left()) {
            ReadResult answer = inbox.poll();
            if (answer == null) {
                return;
            }
            readBackAnswered(answer, now, run);
            run.handled++;
        }
    }

    private void readBackAnswered(ReadResult answer, long now, Budget run) {
        ReadRequest request = answer.request();
        Bytes ref = request.documentRef();
        if (!pendingReads.remove(ref, request)) {
            return;
        }
        IndexEntry position = schedule.position(ref);
        if (position == null || timelineOf(position) != Timeline.CONFIRMATIONS) {
            return;
        }
        ScheduleEntry entry = schedule.entryAt(ref, position);
        if (entry == null || !request.isFor(entry)) {
            return;
        }
        Bytes key = ScheduleKey.of(Timeline.CONFIRMATIONS, position.getDueAt().toEpochMilli(), ref);
        ReadBackVerdict verdict = verdictOn(answer, entry, now);
        switch (verdict.kind()) {
            case GONE -> {
                schedule.removeAt(key);
                // The document was gone by the read, which came before this punctuation: a bound, not the delete's
                // own time, which only its (lost) event would tell.
                long lag = Math.max(0, now - ScheduleEntries.deadlineOf(entry));
                confirmedByRead.record();
                confirmed.record();
                confirmedLag.record(lag, now);
                settings.listener().confirmed(entry.getRule(), lag);
                audit(ref, entry, ExpiryOutcome.CONFIRMED, now, entry.getAttempts(), lag);
            }
            case MOVED -> {
                schedule.move(key, Timeline.DEADLINES, verdict.deadline(), verdict.entry());
                rescheduledByRead.record();
                audit(ref, entry, ExpiryOutcome.SUPERSEDED, now, entry.getAttempts(), null);
            }
            case NOT_EXPIRING -> {
                schedule.removeAt(key);
                cancelled.record();
                rescheduledByRead.record();
                audit(ref, entry, ExpiryOutcome.SUPERSEDED, now, entry.getAttempts(), null);
            }
            case FAILED -> {
                readBacksFailed.record();
                retryOrGiveUp(key, ref, entry, now, run);
            }
            default -> retryOrGiveUp(key, ref, entry, now, run);
        }
    }

    /**
     * The verdict of {@code answer} on {@code entry}. A document the rules cannot evaluate (nested past what they
     * handle, say) tells nothing: the read counts as failed, and the command goes out again as without read-back.
     */
    private ReadBackVerdict verdictOn(ReadResult answer, ScheduleEntry entry, long now) {
        try {
            return ReadBackVerdict.of(answer, entry, settings.rules(), Instant.ofEpochMilli(now));
        } catch (RuntimeException | Error e) {
            if (!DeadLetters.isCausedByRecord(e)) {
                throw e;
            }
            LOG.warn(
                    "Task {}: could not evaluate the rules on {} of {} as read back; retrying its delete",
                    context.taskId(),
                    DocumentRef.documentKeyOf(answer.request().documentRef()).toJson(),
                    answer.request().namespace(),
                    e);
            return ReadBackVerdict.FAILED;
        }
    }

    /** The same command goes out again, or, after the last attempt, the entry goes. */
    private void retryOrGiveUp(Bytes key, Bytes ref, ScheduleEntry entry, long now, Budget run) {
        if (entry.getAttempts() < settings.confirmMaxAttempts()) {
            ScheduleEntry sent = send(key, entry, now, run);
            reemitted.record();
            schedule.move(key, Timeline.CONFIRMATIONS, now + settings.confirmWaitMillis(sent.getAttempts()), sent);
            return;
        }
        schedule.removeAt(key);
        unconfirmed.record();
        settings.listener().unconfirmed(entry.getRule());
        LOG.warn(
                "Task {}: no delete of {} in {} confirmed after {} delete commands (rule {}, deadline {}); giving up",
                context.taskId(),
                DocumentRef.documentKeyOf(ref).toJson(),
                DocumentRef.namespaceOf(ref),
                entry.getAttempts(),
                entry.getRule(),
                Instant.ofEpochMilli(ScheduleEntries.deadlineOf(entry)));
        audit(ref, entry, ExpiryOutcome.UNCONFIRMED, now, entry.getAttempts(), null);
    }

    /**
     * Emits the entry's delete command, issued at {@code now} (a re-emission is a new command with its own issue
     * time, which the sink guard's validity counts from), and its audit event; returns the entry counting this
     * attempt.
     */
    private ScheduleEntry send(Bytes key, ScheduleEntry entry, long now, Budget run) {
        Bytes ref = ScheduleKey.documentRefOf(key);
        DeleteCommand command = ScheduleEntries.command(ref, entry, now);
        context.forward(new Record<String, Object>(command.keyJson(), command, now), TtlTopology.DELETES_SINK);
        ScheduleEntry sent = ScheduleEntries.emitted(entry, now);
        audit(ref, sent, ExpiryOutcome.EMITTED, now, sent.getAttempts(), null);
        run.commands++;
        return sent;
    }

    /** What the current rules make of an entry computed under possibly older ones. */
    private record Reconciliation(Kind kind, long offsetSeconds) {
        enum Kind {
            /** The rule is as it was. */
            KEEP,
            /** The rule is gone: the entry goes, and no command. */
            CANCEL,
            /** The rule changed in a way that needs the document: the entry waits for an event or a resync. */
            HOLD,
            /** Only the rule's expire.after.seconds changed: the deadline moves, counted from the same base. */
            MOVE
        }

        static final Reconciliation KEEP = new Reconciliation(Kind.KEEP, 0);
        static final Reconciliation CANCEL = new Reconciliation(Kind.CANCEL, 0);
        static final Reconciliation HOLD = new Reconciliation(Kind.HOLD, 0);
    }

    private Reconciliation reconcile(ScheduleEntry entry) {
        Optional<TtlRule> rule = settings.rules().rule(entry.getRule());
        if (rule.isEmpty()) {
            return Reconciliation.CANCEL;
        }
        if (rule.get().shape() != entry.getRuleShape()) {
            return Reconciliation.HOLD;
        }
        if (entry.getOffsetFromRule() && rule.get().expireAfterSeconds() != entry.getOffsetSeconds()) {
            return new Reconciliation(Reconciliation.Kind.MOVE, rule.get().expireAfterSeconds());
        }
        return Reconciliation.KEEP;
    }

    /**
     * Reconciles an entry of the deadlines timeline, found by a scan, with the current rules. Returns the entry still
     * due at {@code now}, possibly with a recomputed deadline, when the caller is to emit it ({@code emitting}: it
     * stays at its key, which the caller then moves); null when it left (cancelled, held) or moved to another time.
     * Without {@code emitting} (the walk), a recomputed deadline always moves the entry, to an earlier time too.
     */
    private ScheduleEntry reconcileDeadline(Bytes key, ScheduleEntry entry, long now, boolean emitting) {
        Reconciliation reconciliation = reconcile(entry);
        Bytes ref = ScheduleKey.documentRefOf(key);
        switch (reconciliation.kind()) {
            case CANCEL -> {
                schedule.removeAt(key);
                ruleRemoved(ref, entry, now);
                return null;
            }
            case HOLD -> {
                schedule.move(key, Timeline.HELD, ScheduleEntries.deadlineOf(entry), entry);
                held.record();
                changesOf(entry.getRule()).held++;
                return null;
            }
            case MOVE -> {
                ScheduleEntry moved = ScheduleEntries.withOffset(entry, reconciliation.offsetSeconds());
                OptionalLong movedDeadline = deadlineUnlessBeyondTime(key, moved);
                if (movedDeadline.isEmpty()) {
                    return null;
                }
                long deadline = movedDeadline.getAsLong();
                rescheduled.record();
                RuleChanges changes = changesOf(entry.getRule());
                changes.moved++;
                if (deadline <= now) {
                    changes.dueAtOnce++;
                    if (emitting) {
                        return moved;
                    }
                }
                schedule.move(key, Timeline.DEADLINES, deadline, moved);
                return null;
            }
            default -> {
                return entry;
            }
        }
    }

    private void ruleRemoved(Bytes ref, ScheduleEntry entry, long now) {
        ruleRemoved.record();
        changesOf(entry.getRule()).cancelled++;
        audit(ref, entry, ExpiryOutcome.RULE_REMOVED, now, entry.getAttempts(), null);
    }

    /**
     * Compares the rules with those the schedule was last reconciled with ({@link ScheduleStores#RULE_VERSIONS}): a
     * removed rule, or a changed shape or offset, starts a walk over the schedule; otherwise the current rules are
     * recorded (an added rule changes no existing entry).
     */
    private void compareRules() {
        boolean changed = false;
        try (KeyValueIterator<String, RuleVersion> versions = ruleVersions.all()) {
            while (versions.hasNext() && !changed) {
                KeyValue<String, RuleVersion> version = versions.next();
                Optional<TtlRule> rule = settings.rules().rule(version.key);
                changed = rule.isEmpty()
                        || rule.get().shape() != version.value.getShape()
                        || rule.get().expireAfterSeconds() != version.value.getExpireAfterSeconds();
            }
        }
        if (changed) {
            walkCursor = ExpirySchedule.walkStart();
            LOG.info(
                    "Task {}: the rules changed since the schedule was last reconciled; reconciling it",
                    context.taskId());
        } else {
            recordRuleVersions();
        }
    }

    /**
     * Walks the whole schedule, a budget's worth per punctuation, reconciling each entry with the current rules, so
     * that a shortened offset makes documents due now rather than at their old deadline, and entries of removed or
     * reshaped rules leave the deadlines timeline before they come due. Logs a summary per rule when done.
     */
    private void walk(long now, Budget run) {
        Bytes last = null;
        boolean exhausted;
        try (KeyValueIterator<Bytes, ScheduleEntry> entries = schedule.walkFrom(walkCursor)) {
            while (run.left() && entries.hasNext()) {
                KeyValue<Bytes, ScheduleEntry> next = entries.next();
                walkOver(next.key, next.value, now);
                last = next.key;
                run.handled++;
            }
            exhausted = !entries.hasNext();
        }
        if (exhausted) {
            walkCursor = null;
            recordRuleVersions();
            ruleChanges.forEach((rule, changes) -> LOG.info("Task {}: rule {} {}", context.taskId(), rule, changes));
            ruleChanges.clear();
        } else if (last != null) {
            walkCursor = successor(last);
        }
    }

    private void walkOver(Bytes key, ScheduleEntry entry, long now) {
        Timeline timeline = ScheduleKey.timelineOf(key);
        if (timeline == Timeline.DEADLINES) {
            reconcileDeadline(key, entry, now, false);
            return;
        }
        Reconciliation reconciliation = reconcile(entry);
        if (reconciliation.kind() == Reconciliation.Kind.CANCEL) {
            schedule.removeAt(key);
            ruleRemoved(ScheduleKey.documentRefOf(key), entry, now);
        } else if (timeline == Timeline.HELD && reconciliation.kind() != Reconciliation.Kind.HOLD) {
            // The rule is back to the shape the entry was computed under: it needs no document after all.
            ScheduleEntry back = reconciliation.kind() == Reconciliation.Kind.MOVE
                    ? ScheduleEntries.withOffset(entry, reconciliation.offsetSeconds())
                    : entry;
            deadlineUnlessBeyondTime(key, back)
                    .ifPresent(deadline -> schedule.move(key, Timeline.DEADLINES, deadline, back));
        }
    }

    /**
     * The deadline of {@code entry}, whose offset the current rule set; empty, with the entry at {@code key}
     * cancelled, when it lies beyond the last representable instant: never, as the rules say of such a deadline.
     */
    private OptionalLong deadlineUnlessBeyondTime(Bytes key, ScheduleEntry entry) {
        OptionalLong deadline = ScheduleEntries.movedDeadlineOf(entry);
        if (deadline.isEmpty()) {
            schedule.removeAt(key);
            cancelled.record();
        }
        return deadline;
    }

    private void recordRuleVersions() {
        try (KeyValueIterator<String, RuleVersion> versions = ruleVersions.all()) {
            while (versions.hasNext()) {
                String name = versions.next().key;
                if (settings.rules().rule(name).isEmpty()) {
                    ruleVersions.delete(name);
                }
            }
        }
        for (TtlRule rule : settings.rules().rules()) {
            RuleVersion version = new RuleVersion(rule.shape(), rule.expireAfterSeconds());
            if (!version.equals(ruleVersions.get(rule.name()))) {
                ruleVersions.put(rule.name(), version);
            }
        }
    }

    private RuleChanges changesOf(String rule) {
        return ruleChanges.computeIfAbsent(rule, name -> new RuleChanges());
    }

    /** Counts of what reconciling did to one rule's entries, for one log line. */
    private static final class RuleChanges {
        private int cancelled;
        private int held;
        private int moved;
        private int dueAtOnce;

        @Override
        public String toString() {
            return "changed: " + cancelled + " entries cancelled (rule removed), " + held + " held until their"
                    + " documents are evaluated again (rule reshaped), " + moved + " deadlines moved (offset changed),"
                    + " of which " + dueAtOnce + " became due at once";
        }
    }

    private void audit(Bytes ref, ScheduleEntry entry, ExpiryOutcome outcome, long now, int attempt, Long lagMillis) {
        if (!settings.auditEnabled()) {
            return;
        }
        String documentKey = CanonicalJson.of(DocumentRef.documentKeyOf(ref));
        context.forward(
                new Record<String, Object>(
                        documentKey,
                        new ExpiryEvent(
                                DocumentRef.namespaceOf(ref).toString(),
                                documentKey,
                                entry.getRule(),
                                Instant.ofEpochMilli(ScheduleEntries.deadlineOf(entry)),
                                Instant.ofEpochMilli(now),
                                outcome,
                                attempt,
                                lagMillis),
                        now),
                TtlTopology.AUDIT_SINK);
    }

    private static Timeline timelineOf(IndexEntry position) {
        return Timeline.of(position.getTimeline());
    }

    /** The smallest key after {@code key}: the key followed by a 0x00 byte. */
    private static Bytes successor(Bytes key) {
        byte[] bytes = key.get();
        return Bytes.wrap(Arrays.copyOf(bytes, bytes.length + 1));
    }

    /**
     * Whether a clusterTime is at or before another. Unsigned: a BSON timestamp's seconds are an unsigned 32-bit
     * count, so from 2038 its 64-bit value is negative as a signed long.
     */
    private static boolean isNotNewer(Long clusterTime, Long latest) {
        return clusterTime != null && latest != null && Long.compareUnsigned(clusterTime, latest) <= 0;
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
        inbox.close();
        pendingReads.clear();
        if (metrics != null) {
            metrics.close();
        }
    }
}
