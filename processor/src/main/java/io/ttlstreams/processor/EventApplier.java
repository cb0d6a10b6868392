package io.ttlstreams.processor;

import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.readback.ReadResult;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.rules.TtlMode;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.rules.TtlRules;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.UnscheduledNotes;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies change events to the expiry schedule: a document's event moves its single entry, a namespace-wide event
 * cancels the namespace's entries.
 *
 * <p>For each document event it evaluates the TTL rules on the current document (latest value wins) and moves the
 * document's single schedule entry, found by namespace and {@code _id} whatever shard key fields the event's {@code
 * documentKey} holds ({@link io.ttlstreams.state.DocumentRef}), the entry keeping that latest {@code documentKey} for
 * its delete filter: the {@code index} store says where the entry is, so an update reschedules and a
 * delete cancels with point lookups, never a scan; an update that leaves the entry exactly as it was writes nothing.
 * Namespace-wide events (from the control topic) cancel every entry of the namespace changed before them, with a
 * prefix scan of the index, and are remembered ({@link NamespaceDrops}) so that older events of that namespace
 * arriving later from other partitions are not scheduled again.
 */
final class EventApplier {

    private static final Logger LOG = LoggerFactory.getLogger(EventApplier.class);

    /** Why an update whose document was gone when the source connector looked it up is not scheduled. */
    static final String GONE_AT_LOOKUP = "the change event carries no full document: the document was deleted (or"
            + " replaced) before the source connector looked it up, and its delete event follows; or, on a sharded"
            + " collection, the look-up missed it after a shard key change, and it is read again by _id where"
            + " read-back is on";

    private final TtlRules rules;
    private final CommandSizeBound commandBound;
    private final ExpirySchedule schedule;
    private final UnscheduledNotes notes;
    private final NamespaceDrops drops;
    private final Admission guard;
    private final Outcomes outcomes;
    private final LookupRereads rereads;
    private final ProcessorContext<?, ?> context;

    EventApplier(
            TtlRules rules,
            CommandSizeBound commandBound,
            ExpirySchedule schedule,
            UnscheduledNotes notes,
            NamespaceDrops drops,
            Admission guard,
            Outcomes outcomes,
            LookupRereads rereads,
            ProcessorContext<?, ?> context) {
        this.rules = rules;
        this.commandBound = commandBound;
        this.schedule = schedule;
        this.notes = notes;
        this.drops = drops;
        this.guard = guard;
        this.outcomes = outcomes;
        this.rereads = rereads;
        this.context = context;
    }

    /**
     * Applies one event to the schedule: namespace-wide, document change or resync.
     *
     * @param recordTimestamp when the source connector published the event
     * @throws RuntimeException when the event cannot be applied (see {@link DeadLetters#isCausedByRecord})
     */
    void apply(ChangeEvent event, long recordTimestamp) {
        if (event.isNamespaceWide()) {
            cancelNamespace(event);
        } else if (drops.precede(clusterTimeOf(event), event.namespace())) {
            outcomes.count(TtlMetrics.STALE);
        } else {
            applyToDocument(event, recordTimestamp);
        }
    }

    /**
     * Applies one document's change (or resync) to its schedule entry.
     *
     * @param recordTimestamp when the source connector published the event, which is after it looked the document
     *     up
     */
    private void applyToDocument(ChangeEvent event, long recordTimestamp) {
        Bytes ref = schedule.namespaces().ref(event.namespace(), event.documentKey());
        DocumentEntry current = schedule.find(ref);
        Long clusterTime = clusterTimeOf(event);
        boolean resync = event.operationType() == OperationType.RESYNC;
        if (resync && current != null && NamespaceDrops.isNotNewer(clusterTime, current.changedAt())) {
            outcomes.count(TtlMetrics.RESYNC_STALE);
            return;
        }
        if (event.operationType() == OperationType.DELETE) {
            notes.forget(ref);
            deleted(current, event);
            return;
        }
        if (event.fullDocument() == null) {
            notes.note(ref, GONE_AT_LOOKUP, operationOf(event), event.eventTime());
            // An update whose document was deleted before the connector's lookup: the delete event follows and
            // confirms an awaited command; anything else has nothing left to expire.
            if (current != null && !current.state().awaitsConfirmation()) {
                unschedule(current);
            }
            // Or its look-up missed it (a shard key changed): read it again by _id (LookupRereads).
            if (event.operationType() == OperationType.UPDATE
                    && (current == null || !current.state().awaitsConfirmation())) {
                rereads.ask(ref, event.namespace());
            }
            return;
        }
        if (current != null && markConfirmed(current, event)) {
            // Its own mark: the entry is done; the marked document is evaluated afresh below (never marked again,
            // or deleted after the grace period).
            current = null;
        }
        Instant changeTime = changeTime(event, recordTimestamp);
        ExpiryDecision decision = resync
                ? rules.evaluateResync(event.namespace(), event.fullDocument(), changeTime)
                : rules.evaluate(event.namespace(), event.fullDocument(), changeTime);
        if (decision.documentTtlIgnored()) {
            outcomes.count(TtlMetrics.DOCUMENT_TTL_IGNORED);
        }
        if (decision.implausibleValue()) {
            outcomes.count(TtlMetrics.IMPLAUSIBLE);
        }
        if (!decision.expires()) {
            notes.note(ref, decision.reason(), operationOf(event), event.eventTime());
            if (current != null) {
                unschedule(current);
            }
            return;
        }
        TtlRule rule = rules.rule(decision.rule()).orElseThrow();
        ScheduleEntry entry = ScheduleEntries.of(decision, rule, rules.shape(rule), event.documentKey());
        if (current != null && keepsCurrentEntry(event, rule, decision, current, entry)) {
            outcomes.count(TtlMetrics.UNCHANGED);
            return;
        }
        OptionalInt commandBytes = commandBound.excess(ref, event.namespace(), entry);
        if (commandBytes.isPresent()) {
            // Never stored: its command could not be sent. The entry it would replace pins values gone from the
            // document, so it goes too; the event is dead-lettered with the size.
            if (current != null) {
                unschedule(current);
            }
            String refusal = commandBound.refusal(commandBytes.getAsInt());
            notes.note(ref, refusal + " (dead-lettered)", operationOf(event), event.eventTime());
            throw new IllegalArgumentException(refusal);
        }
        ScheduleEntry superseded =
                current != null && current.state().awaitsConfirmation() ? schedule.entryOf(current) : null;
        long deadline = decision.deadline().toEpochMilli();
        // Due on arrival is judged against the change itself: a lagging pipeline makes a deadline pass in transit,
        // which is organic expiry come late, not a mistake.
        EntryState admitted =
                guard.admit(ref, entry, deadline, event.eventTime().toEpochMilli(), context.currentSystemTimeMs());
        schedule.schedule(ref, current, admitted, deadline, entry, clusterTime);
        notes.forget(ref);
        outcomes.scheduled(ref, entry, admitted, deadline, context.currentSystemTimeMs());
        if (superseded != null) {
            outcomes.superseded(ref, superseded, context.currentSystemTimeMs());
        }
    }

    /**
     * Applies a read asked by {@link LookupRereads}: a document found is scheduled as a resync's would be, at {@code
     * now}, unless a later event gave it an entry meanwhile; one absent or unread stays unscheduled.
     */
    void reread(ReadResult answer, long now) {
        Bytes ref = answer.request().documentRef();
        if (answer.kind() != ReadResult.Kind.PRESENT || schedule.find(ref) != null) {
            return;
        }
        ChangeEvent read = new ChangeEvent(
                OperationType.RESYNC,
                answer.request().namespace(),
                DocumentRef.idKeyOf(ref),
                answer.document(),
                Instant.ofEpochMilli(now),
                null);
        try {
            applyToDocument(read, now);
        } catch (RuntimeException | Error e) {
            if (!DeadLetters.isCausedByRecord(e)) {
                throw e;
            }
            LOG.warn("Could not schedule {} of {} as read again", read.documentKeyJson(), read.namespace(), e);
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
            ChangeEvent event, TtlRule rule, ExpiryDecision decision, DocumentEntry current, ScheduleEntry entry) {
        if (event.operationType() == OperationType.RESYNC) {
            if (current.state().awaitsConfirmation()) {
                return true;
            }
            if (rule.mode() == TtlMode.LAST_MODIFIED
                    && current.state() == EntryState.SCHEDULED
                    && decision.deadline().toEpochMilli() < current.dueAt()) {
                return true;
            }
        }
        return event.operationType() != OperationType.INSERT && current.computedFrom(entry);
    }

    /**
     * A delete event: it confirms an awaited delete command (and writes its expired record), or cancels a pending
     * deadline. A delete whose pre-image holds values the command would not have matched confirms nothing: another
     * writer deleted the document.
     */
    private void deleted(DocumentEntry current, ChangeEvent event) {
        if (current == null) {
            return;
        }
        Bytes ref = current.documentRef();
        boolean awaited = current.state().awaitsConfirmation();
        ScheduleEntry entry = schedule.entryOf(current);
        schedule.remove(current);
        if (!awaited || entry == null) {
            outcomes.cancelled(1);
            return;
        }
        long now = context.currentSystemTimeMs();
        if (!causedByCommand(entry, event)) {
            outcomes.deletedByAnotherWriter(ref, entry, now);
            return;
        }
        outcomes.confirmed(ref, entry, event, false, now);
    }

    /**
     * Whether the delete event of a document whose command awaited confirmation is that command's delete, as far as
     * its pre-image tells: with none, it is taken to be; with one, only when the rules give the document as it was
     * the entry's rule and condition, which the conditional delete requires. A document holding other values was
     * deleted by another writer (the command could not have matched it).
     */
    private boolean causedByCommand(ScheduleEntry entry, ChangeEvent event) {
        BsonDocument preImage = event.fullDocumentBeforeChange();
        if (preImage == null) {
            return true;
        }
        ExpiryDecision decision = rules.evaluate(event.namespace(), preImage, event.eventTime());
        return decision.expires()
                && ScheduleEntries.sameCommand(
                        entry,
                        ScheduleEntries.of(decision, rules.rule(decision.rule()).orElseThrow()));
    }

    /**
     * Whether the event shows the mark an awaited mark command set (the rule's field equal to the entry's deadline),
     * which confirms the command: then the entry goes, counted and recorded as a delete's confirmation is.
     */
    private boolean markConfirmed(DocumentEntry current, ChangeEvent event) {
        if (!current.state().awaitsConfirmation()) {
            return false;
        }
        Bytes ref = current.documentRef();
        ScheduleEntry entry = schedule.entryOf(current);
        if (entry == null) {
            return false;
        }
        long deadline = ScheduleEntries.deadlineOf(entry);
        boolean marked = rules.rule(entry.getRule())
                .filter(rule -> rule.marks(ScheduleEntries.conditionOf(entry)))
                .filter(rule -> rule.markedAt(event.fullDocument(), deadline))
                .isPresent();
        if (!marked) {
            return false;
        }
        schedule.remove(current);
        outcomes.confirmed(ref, entry, event, true, context.currentSystemTimeMs());
        return true;
    }

    /** The document no longer expires (or is gone): its entry goes; an awaited command is superseded. */
    private void unschedule(DocumentEntry current) {
        Bytes ref = current.documentRef();
        ScheduleEntry entry = current.state().awaitsConfirmation() ? schedule.entryOf(current) : null;
        schedule.remove(current);
        outcomes.cancelled(1);
        if (entry != null) {
            outcomes.superseded(ref, entry, context.currentSystemTimeMs());
        }
    }

    /**
     * Cancels every entry of the namespace (a whole database for dropDatabase) that was changed by an event no later
     * than this one. Later entries belong to a re-created namespace and stay.
     */
    private void cancelNamespace(ChangeEvent event) {
        Long dropTime = clusterTimeOf(event);
        // A namespace the task's dictionary does not know has no entries and no notes.
        Optional<Bytes> prefix = event.operationType() == OperationType.DROP_DATABASE
                ? schedule.namespaces().databasePrefix(event.namespace().database())
                : schedule.namespaces().collectionPrefix(event.namespace());
        int count = prefix.map(known -> schedule.removeAll(known, dropTime)).orElse(0);
        prefix.ifPresent(notes::forgetAll);
        outcomes.cancelled(count);
        if (dropTime != null) {
            drops.dropped(event.namespace(), dropTime);
        }
        LOG.info(
                "{} of {}: cancelled {} scheduled expiries in task {}",
                event.operationType(),
                event.namespace(),
                count,
                context.taskId());
    }

    private static String operationOf(ChangeEvent event) {
        return event.operationType().name().toLowerCase(Locale.ROOT);
    }

    private static Long clusterTimeOf(ChangeEvent event) {
        BsonTimestamp clusterTime = event.clusterTime();
        return clusterTime == null ? null : clusterTime.getValue();
    }
}
