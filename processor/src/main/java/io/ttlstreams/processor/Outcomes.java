package io.ttlstreams.processor;

import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import java.time.Instant;
import java.util.OptionalLong;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonDocument;

/**
 * The one sink of what happens to a document's entry: each outcome, one method, counts it ({@link SchedulerSensors}),
 * audits it ({@link AuditWriter}) and writes its expired record or notice ({@link ExpiredRecords}), as the outcome
 * calls for. The scheduler's parts report here and know none of the three; what an outcome causes is said once.
 *
 * <p>{@code ref} is the document, {@code entry} its entry as it stands when the outcome came, {@code now} the
 * punctuation's or the record's wall-clock time.
 */
final class Outcomes {

    private final SchedulerSensors sensors;
    private final AuditWriter audit;
    private final ExpiredRecords expired;
    private final ExpirySchedule schedule;

    Outcomes(SchedulerSensors sensors, AuditWriter audit, ExpiredRecords expired, ExpirySchedule schedule) {
        this.sensors = sensors;
        this.audit = audit;
        this.expired = expired;
        this.schedule = schedule;
    }

    /**
     * The document got a new entry in {@code state}: counted; a scheduled one gets its notice when its rule publishes
     * notices and the notice's time is still ahead (a deadline already closer than the notice period gets none).
     */
    void scheduled(Bytes ref, ScheduleEntry entry, EntryState state, long deadline, long now) {
        sensors.scheduled.record();
        OptionalLong noticeAt =
                state == EntryState.SCHEDULED ? expired.noticeAt(entry, deadline) : OptionalLong.empty();
        if (noticeAt.isPresent() && noticeAt.getAsLong() > now) {
            schedule.putNotice(ref, noticeAt.getAsLong(), entry);
        }
    }

    /** Entries left the schedule with no command out (deleted, no longer expiring, namespace dropped): counted. */
    void cancelled(long count) {
        sensors.cancelled.record(count);
    }

    /** A command awaiting confirmation was superseded by a change of its document: audited. */
    void superseded(Bytes ref, ScheduleEntry entry, long now) {
        audit(ref, entry, ExpiryOutcome.SUPERSEDED, now);
    }

    /**
     * A document whose command awaited confirmation was deleted by another writer (its pre-image holds values the
     * command would not have matched): counted as cancelled and not caused, audited as superseded; no expired record.
     */
    void deletedByAnotherWriter(Bytes ref, ScheduleEntry entry, long now) {
        sensors.deletesNotCaused.record();
        sensors.cancelled.record();
        superseded(ref, entry, now);
    }

    /**
     * The change stream confirmed the command of {@code entry} at {@code deletedAt} (a mark command's mark when {@code
     * mark}): counted with its lag, audited, and its expired record written.
     *
     * @param preImage the delete event's pre-image; null when it carried none
     */
    void confirmed(Bytes ref, ScheduleEntry entry, Instant deletedAt, BsonDocument preImage, boolean mark, long now) {
        if (mark) {
            sensors.marked.record();
        }
        long lag = Math.max(0, deletedAt.toEpochMilli() - ScheduleEntries.deadlineOf(entry));
        confirmedLate(ref, entry, lag, now);
        if (expired.confirmedByChangeStream(ref, entry, deletedAt, preImage, now)) {
            sensors.expiredRecords.record();
        }
    }

    /** A read found the document gone: its delete confirmed, counted, audited, and its expired record written. */
    void confirmedByRead(Bytes ref, ScheduleEntry entry, long now) {
        // The document was gone by the read, which came before this punctuation: a bound, not the delete's own time,
        // which only its (lost) event would tell.
        long lag = Math.max(0, now - ScheduleEntries.deadlineOf(entry));
        sensors.confirmedByRead.record();
        confirmedLate(ref, entry, lag, now);
        if (expired.confirmedByReadBack(ref, entry, now)) {
            sensors.expiredRecords.record();
        }
    }

    private void confirmedLate(Bytes ref, ScheduleEntry entry, long lag, long now) {
        sensors.confirmed(entry.getRule(), lag);
        audit.write(ref, entry, ExpiryOutcome.CONFIRMED, now, entry.getAttempts(), lag);
    }

    /** The first command of a passed deadline went out: audited, counted with its lag after the deadline. */
    void emitted(Bytes ref, ScheduleEntry sent, long now) {
        audit(ref, sent, ExpiryOutcome.EMITTED, now);
        sensors.emitted(sent.getRule(), now - ScheduleEntries.deadlineOf(sent));
    }

    /** A command went out again, its confirmation overdue: audited and counted. */
    void reemitted(Bytes ref, ScheduleEntry sent, long now) {
        audit(ref, sent, ExpiryOutcome.EMITTED, now);
        sensors.reemitted.record();
    }

    /** Ends a punctuation's commands: what {@link #emitted} counts is recorded ({@link SchedulerSensors#emitted}). */
    void punctuated() {
        sensors.emittedCounted();
    }

    /** A deadline passed under {@code ttl.dry.run}: no command, the entry gone, counted and audited. */
    void dryRun(Bytes ref, ScheduleEntry entry, long now) {
        sensors.dryRuns.record();
        audit.write(ref, entry, ExpiryOutcome.DRY_RUN, now, 0, null);
    }

    /** No confirmation came after the last attempt: given up, counted and audited. */
    void unconfirmed(Bytes ref, ScheduleEntry entry, long now) {
        sensors.unconfirmed(entry.getRule());
        audit(ref, entry, ExpiryOutcome.UNCONFIRMED, now);
    }

    /** An entry whose command is over the record bound was dropped: counted as dead-lettered. */
    void tooLargeToSend() {
        sensors.deadLettered.record();
    }

    /** A read-back was asked for a document whose confirmation is overdue. */
    void readBackAsked() {
        sensors.readBacks.record();
    }

    /** A read-back failed, was refused or went unanswered. */
    void readBackFailed() {
        sensors.readBacksFailed.record();
    }

    /**
     * A read found other values than the entry's: the awaited command superseded, the document given the deadline
     * they give ({@code cancelled} when none): counted and audited.
     */
    void rescheduledByRead(Bytes ref, ScheduleEntry entry, boolean cancelled, long now) {
        if (cancelled) {
            sensors.cancelled.record();
        }
        sensors.rescheduledByRead.record();
        superseded(ref, entry, now);
    }

    /** The entry's rule is gone: the entry cancelled, counted and audited. */
    void ruleRemoved(Bytes ref, ScheduleEntry entry, long now) {
        sensors.ruleRemoved.record();
        audit(ref, entry, ExpiryOutcome.RULE_REMOVED, now);
    }

    /** The entry's rule changed in a way that needs the document: held, counted. */
    void heldForDocument() {
        sensors.held.record();
    }

    /** The entry's rule changed its offset only: its deadline moved, counted. */
    void rescheduled() {
        sensors.rescheduled.record();
    }

    /** The entry came due on arrival past its rule's blast-radius limit: held for approval, counted and audited. */
    void heldForApproval(Bytes ref, ScheduleEntry entry, long now) {
        sensors.heldForApproval.record();
        audit(ref, entry, ExpiryOutcome.HELD_FOR_APPROVAL, now);
    }

    /** An operator approved or rejected the held entry: counted and audited. */
    void decided(Bytes ref, ScheduleEntry entry, boolean approved, long now) {
        (approved ? sensors.approved : sensors.rejected).record();
        audit(ref, entry, approved ? ExpiryOutcome.APPROVED : ExpiryOutcome.REJECTED, now);
    }

    /** The notice of a deadline the document still has came due: its {@code EXPIRING} record published, counted. */
    void noticeDue(Bytes ref, ScheduleEntry notice, long noticeAt, long now) {
        expired.notice(ref, notice, noticeAt, now);
        sensors.notices.record();
    }

    /** An event older than a drop of its namespace was ignored. */
    void stale() {
        sensors.stale.record();
    }

    /** A resync older than the latest change applied to its document was ignored. */
    void resyncStale() {
        sensors.resyncStale.record();
    }

    /** An event changed nothing its document's entry was computed from: nothing written. */
    void unchanged() {
        sensors.unchanged.record();
    }

    /** A document's own ttl value was invalid, so its rule's default applied. */
    void documentTtlIgnored() {
        sensors.documentTtlIgnored.record();
    }

    /** A document's epoch value means no deadline, so nothing was scheduled on it. */
    void implausible() {
        sensors.implausible.record();
    }

    private void audit(Bytes ref, ScheduleEntry entry, ExpiryOutcome outcome, long now) {
        audit.write(ref, entry, outcome, now, entry.getAttempts(), null);
    }
}
