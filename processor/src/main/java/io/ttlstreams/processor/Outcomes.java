package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Bytes;

/**
 * The one sink of what happens to a document's entry: each outcome, one method ({@link #count} for those only
 * counted), counts it in the task's meters, audits it ({@link AuditWriter}) and writes its expired record or notice
 * ({@link ExpiredRecords}), as the outcome calls for. The scheduler's parts report here and know none of these; what
 * an outcome causes is said once.
 *
 * <p>{@code ref} is the document, {@code entry} its entry as it stands when the outcome came, {@code now} the
 * punctuation's or the record's wall-clock time.
 *
 * <p>Its meters are registered once per task. Emissions, confirmations and their lags are per rule: the configured
 * rules' meters exist from the start, at zero, as Prometheus wants; a rule met only in a stored entry (removed since)
 * gets its meters when first recorded. The read-back counters exist only when read-back is on, so that a processor
 * without read-back reports no read-back metrics.
 */
final class Outcomes {

    /** The counters of the task's outcomes, by name; the read-back ones only when read-back is on. */
    private final Map<String, Counter> counts = new HashMap<>();

    private final TtlMetrics metrics;
    private final Map<String, RuleMeters> byRule = new HashMap<>();
    /** The rule of the last first command {@link #emitted}, its meters, and its commands not yet counted. */
    private String countingRule;

    private RuleMeters counting;
    private long uncounted;

    private final AuditWriter audit;
    private final ExpiredRecords expired;
    private final ExpirySchedule schedule;

    /** One rule's meters. */
    private record RuleMeters(
            Counter emitted, Timer expiryLag, Counter confirmed, Timer confirmedLag, Counter unconfirmed) {}

    /**
     * @param rules the configured rules, whose meters exist from the start
     * @param readBack whether read-back is on, which brings the read-back counters
     */
    Outcomes(
            TtlMetrics metrics,
            Collection<String> rules,
            boolean readBack,
            AuditWriter audit,
            ExpiredRecords expired,
            ExpirySchedule schedule) {
        this.metrics = metrics;
        this.audit = audit;
        this.expired = expired;
        this.schedule = schedule;
        List<String> counters = new ArrayList<>(List.of(
                TtlMetrics.SCHEDULED,
                TtlMetrics.CANCELLED,
                TtlMetrics.UNCHANGED,
                TtlMetrics.REEMITTED,
                TtlMetrics.DRY_RUN,
                TtlMetrics.STALE,
                TtlMetrics.RESYNC_STALE,
                TtlMetrics.DOCUMENT_TTL_IGNORED,
                TtlMetrics.IMPLAUSIBLE,
                TtlMetrics.DEAD_LETTERED,
                TtlMetrics.RULE_REMOVED,
                TtlMetrics.HELD,
                TtlMetrics.RESCHEDULED,
                TtlMetrics.HELD_FOR_APPROVAL,
                TtlMetrics.APPROVED,
                TtlMetrics.REJECTED,
                TtlMetrics.EXPIRED_RECORDS,
                TtlMetrics.DELETES_NOT_CAUSED,
                TtlMetrics.MARKED,
                TtlMetrics.NOTICES));
        if (readBack) {
            counters.addAll(List.of(
                    TtlMetrics.READ_BACKS,
                    TtlMetrics.CONFIRMED_BY_READ,
                    TtlMetrics.RESCHEDULED_BY_READ,
                    TtlMetrics.READ_BACKS_FAILED));
        }
        counters.forEach(name -> counts.put(name, metrics.counter(name)));
        rules.forEach(this::forRule);
    }

    /**
     * The document got a new entry in {@code state}: counted; a scheduled one gets its notice when its rule publishes
     * notices and the notice's time is still ahead (a deadline already closer than the notice period gets none).
     */
    void scheduled(Bytes ref, ScheduleEntry entry, EntryState state, long deadline, long now) {
        count(TtlMetrics.SCHEDULED);
        OptionalLong noticeAt =
                state == EntryState.SCHEDULED ? expired.noticeAt(entry, deadline) : OptionalLong.empty();
        if (noticeAt.isPresent() && noticeAt.getAsLong() > now) {
            schedule.putNotice(ref, noticeAt.getAsLong(), entry);
        }
    }

    /** Entries left the schedule with no command out (deleted, no longer expiring, namespace dropped): counted. */
    void cancelled(long count) {
        counts.get(TtlMetrics.CANCELLED).increment(count);
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
        count(TtlMetrics.DELETES_NOT_CAUSED);
        count(TtlMetrics.CANCELLED);
        superseded(ref, entry, now);
    }

    /**
     * The change stream confirmed the command of {@code entry} by {@code event}, its delete (a mark command's mark
     * when {@code mark}): counted with its lag, audited, and its expired record written.
     */
    void confirmed(Bytes ref, ScheduleEntry entry, ChangeEvent event, boolean mark, long now) {
        if (mark) {
            count(TtlMetrics.MARKED);
        }
        Instant deletedAt = event.eventTime();
        long lag = Math.max(0, deletedAt.toEpochMilli() - ScheduleEntries.deadlineOf(entry));
        confirmedLate(ref, entry, lag, now);
        if (expired.confirmedByChangeStream(
                ref, entry, deletedAt, event.fullDocumentBeforeChange(), event.preImageTooLarge(), now)) {
            count(TtlMetrics.EXPIRED_RECORDS);
        }
    }

    /** A read found the document gone: its delete confirmed, counted, audited, and its expired record written. */
    void confirmedByRead(Bytes ref, ScheduleEntry entry, long now) {
        // The document was gone by the read, which came before this punctuation: a bound, not the delete's own time,
        // which only its (lost) event would tell.
        long lag = Math.max(0, now - ScheduleEntries.deadlineOf(entry));
        count(TtlMetrics.CONFIRMED_BY_READ);
        confirmedLate(ref, entry, lag, now);
        if (expired.confirmedByReadBack(ref, entry, now)) {
            count(TtlMetrics.EXPIRED_RECORDS);
        }
    }

    private void confirmedLate(Bytes ref, ScheduleEntry entry, long lag, long now) {
        RuleMeters meters = forRule(entry.getRule());
        meters.confirmed().increment();
        meters.confirmedLag().record(lag, TimeUnit.MILLISECONDS);
        audit.write(ref, entry, ExpiryOutcome.CONFIRMED, now, entry.getAttempts(), lag);
    }

    /**
     * The first command of a passed deadline went out: audited, its lag after the deadline recorded. It is counted by
     * the next {@link #punctuated} (or when a command of another rule comes): one record of the count per punctuation
     * instead of one per command, the same totals once the punctuation ends. Recording per command, and looking its
     * rule's meters up, was 8 % of the punctuation (the {@code CommandCostBench} profile).
     */
    void emitted(Bytes ref, ScheduleEntry sent, long now) {
        audit(ref, sent, ExpiryOutcome.EMITTED, now);
        String rule = sent.getRule();
        if (!rule.equals(countingRule)) {
            punctuated();
            countingRule = rule;
            counting = forRule(rule);
        }
        counting.expiryLag().record(Math.max(0, now - ScheduleEntries.deadlineOf(sent)), TimeUnit.MILLISECONDS);
        uncounted++;
    }

    /** A command went out again, its confirmation overdue: audited and counted. */
    void reemitted(Bytes ref, ScheduleEntry sent, long now) {
        audit(ref, sent, ExpiryOutcome.EMITTED, now);
        count(TtlMetrics.REEMITTED);
    }

    /** Counts the first commands {@link #emitted} since the last call; at the end of a punctuation. */
    void punctuated() {
        if (uncounted > 0) {
            counting.emitted().increment(uncounted);
            uncounted = 0;
        }
    }

    /** A deadline passed under {@code ttl.dry.run}: no command, the entry gone, counted and audited. */
    void dryRun(Bytes ref, ScheduleEntry entry, long now) {
        count(TtlMetrics.DRY_RUN);
        audit.write(ref, entry, ExpiryOutcome.DRY_RUN, now, 0, null);
    }

    /** No confirmation came after the last attempt: given up, counted and audited. */
    void unconfirmed(Bytes ref, ScheduleEntry entry, long now) {
        forRule(entry.getRule()).unconfirmed().increment();
        audit(ref, entry, ExpiryOutcome.UNCONFIRMED, now);
    }

    /**
     * A read found other values than the entry's: the awaited command superseded, the document given the deadline
     * they give ({@code cancelled} when none): counted and audited.
     */
    void rescheduledByRead(Bytes ref, ScheduleEntry entry, boolean cancelled, long now) {
        if (cancelled) {
            count(TtlMetrics.CANCELLED);
        }
        count(TtlMetrics.RESCHEDULED_BY_READ);
        superseded(ref, entry, now);
    }

    /** The entry's rule is gone: the entry cancelled, counted and audited. */
    void ruleRemoved(Bytes ref, ScheduleEntry entry, long now) {
        count(TtlMetrics.RULE_REMOVED);
        audit(ref, entry, ExpiryOutcome.RULE_REMOVED, now);
    }

    /** The entry came due on arrival past its rule's blast-radius limit: held for approval, counted and audited. */
    void heldForApproval(Bytes ref, ScheduleEntry entry, long now) {
        count(TtlMetrics.HELD_FOR_APPROVAL);
        audit(ref, entry, ExpiryOutcome.HELD_FOR_APPROVAL, now);
    }

    /** An operator approved or rejected the held entry: counted and audited. */
    void decided(Bytes ref, ScheduleEntry entry, boolean approved, long now) {
        count(approved ? TtlMetrics.APPROVED : TtlMetrics.REJECTED);
        audit(ref, entry, approved ? ExpiryOutcome.APPROVED : ExpiryOutcome.REJECTED, now);
    }

    /** The notice of a deadline the document still has came due: its {@code EXPIRING} record published, counted. */
    void noticeDue(Bytes ref, ScheduleEntry notice, long noticeAt, long now) {
        expired.notice(ref, notice, noticeAt, now);
        count(TtlMetrics.NOTICES);
    }

    /**
     * An outcome that is only counted, by its counter's name: an event that changed nothing, was stale or met an
     * invalid value, an entry held or rescheduled under a changed rule, one dropped as too large to send (counted as
     * dead-lettered), a read-back asked or failed.
     */
    void count(String counter) {
        counts.get(counter).increment();
    }

    private void audit(Bytes ref, ScheduleEntry entry, ExpiryOutcome outcome, long now) {
        audit.write(ref, entry, outcome, now, entry.getAttempts(), null);
    }

    private RuleMeters forRule(String rule) {
        return byRule.computeIfAbsent(
                rule,
                name -> new RuleMeters(
                        metrics.counter(TtlMetrics.EMITTED, name),
                        metrics.lag(TtlMetrics.EXPIRY_LAG, "expiry lag (command emitted minus deadline)", name),
                        metrics.counter(TtlMetrics.CONFIRMED, name),
                        metrics.lag(TtlMetrics.CONFIRMED_LAG, "confirmed lag (delete event minus deadline)", name),
                        metrics.counter(TtlMetrics.UNCONFIRMED, name)));
    }
}
