package io.ttlstreams.processor;

import io.micrometer.core.instrument.Timer;
import io.ttlstreams.processor.TtlMetrics.Count;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The meters the expiry scheduler's parts record into, registered once per task.
 *
 * <p>Emissions, confirmations and their lags are per rule ({@link #emitted}, {@link #confirmed}, {@link
 * #unconfirmed}): the configured rules' meters exist from the start, at zero, as Prometheus wants; a rule met only in
 * a stored entry (removed since) gets its meters when first recorded. The read-back counters exist only when read-back
 * is on (they are null otherwise), so that a processor without read-back reports no read-back metrics. Only the
 * {@link Outcomes} record into them.
 */
final class SchedulerSensors {

    final Count scheduled;
    final Count cancelled;
    final Count unchanged;
    final Count reemitted;
    final Count dryRuns;
    final Count stale;
    final Count resyncStale;
    final Count documentTtlIgnored;
    final Count implausible;
    final Count deadLettered;
    final Count ruleRemoved;
    final Count held;
    final Count rescheduled;
    final Count heldForApproval;
    final Count approved;
    final Count rejected;
    final Count readBacks;
    final Count confirmedByRead;
    final Count rescheduledByRead;
    final Count readBacksFailed;
    final Count expiredRecords;
    final Count deletesNotCaused;
    final Count marked;
    final Count notices;

    private final TtlMetrics metrics;
    private final Map<String, RuleSensors> byRule = new HashMap<>();
    /** The rule of the last first command {@link #emitted}, its sensors, and its commands not yet counted. */
    private String countingRule;

    private RuleSensors counting;
    private long uncounted;

    /** One rule's sensors. */
    private record RuleSensors(
            Count emitted, Timer expiryLag, Count confirmed, Timer confirmedLag, Count unconfirmed) {}

    SchedulerSensors(TtlMetrics metrics, Collection<String> rules, boolean readBack) {
        this.metrics = metrics;
        this.scheduled = metrics.counter(TtlMetrics.SCHEDULED);
        this.cancelled = metrics.counter(TtlMetrics.CANCELLED);
        this.unchanged = metrics.counter(TtlMetrics.UNCHANGED);
        this.reemitted = metrics.counter(TtlMetrics.REEMITTED);
        this.dryRuns = metrics.counter(TtlMetrics.DRY_RUN);
        this.stale = metrics.counter(TtlMetrics.STALE);
        this.resyncStale = metrics.counter(TtlMetrics.RESYNC_STALE);
        this.documentTtlIgnored = metrics.counter(TtlMetrics.DOCUMENT_TTL_IGNORED);
        this.implausible = metrics.counter(TtlMetrics.IMPLAUSIBLE);
        this.deadLettered = metrics.counter(TtlMetrics.DEAD_LETTERED);
        this.ruleRemoved = metrics.counter(TtlMetrics.RULE_REMOVED);
        this.held = metrics.counter(TtlMetrics.HELD);
        this.rescheduled = metrics.counter(TtlMetrics.RESCHEDULED);
        this.heldForApproval = metrics.counter(TtlMetrics.HELD_FOR_APPROVAL);
        this.approved = metrics.counter(TtlMetrics.APPROVED);
        this.rejected = metrics.counter(TtlMetrics.REJECTED);
        this.readBacks = readBack ? metrics.counter(TtlMetrics.READ_BACKS) : null;
        this.confirmedByRead = readBack ? metrics.counter(TtlMetrics.CONFIRMED_BY_READ) : null;
        this.rescheduledByRead = readBack ? metrics.counter(TtlMetrics.RESCHEDULED_BY_READ) : null;
        this.readBacksFailed = readBack ? metrics.counter(TtlMetrics.READ_BACKS_FAILED) : null;
        this.expiredRecords = metrics.counter(TtlMetrics.EXPIRED_RECORDS);
        this.deletesNotCaused = metrics.counter(TtlMetrics.DELETES_NOT_CAUSED);
        this.marked = metrics.counter(TtlMetrics.MARKED);
        this.notices = metrics.counter(TtlMetrics.NOTICES);
        rules.forEach(this::forRule);
    }

    /**
     * A first delete command for a document of {@code rule} went out {@code lagMillis} after its deadline. Its lag is
     * recorded now; it is counted by the next {@link #emittedCounted} (or when a command of another rule comes): one
     * record of the count per punctuation instead of one per command, the same totals once the punctuation ends.
     * Recording per command, and looking its rule's meters up, was 8 % of the punctuation (the {@code
     * CommandCostBench} profile).
     */
    void emitted(String rule, long lagMillis) {
        if (!rule.equals(countingRule)) {
            emittedCounted();
            countingRule = rule;
            counting = forRule(rule);
        }
        counting.expiryLag().record(Math.max(0, lagMillis), TimeUnit.MILLISECONDS);
        uncounted++;
    }

    /** Counts the first commands {@link #emitted} since the last call; at the end of a punctuation. */
    void emittedCounted() {
        if (uncounted > 0) {
            counting.emitted().record(uncounted);
            uncounted = 0;
        }
    }

    /** A delete of a document of {@code rule} was confirmed {@code lagMillis} after its deadline. */
    void confirmed(String rule, long lagMillis) {
        RuleSensors sensors = forRule(rule);
        sensors.confirmed().record();
        sensors.confirmedLag().record(Math.max(0, lagMillis), TimeUnit.MILLISECONDS);
    }

    /** A document of {@code rule} was given up on: no confirmation after the last attempt. */
    void unconfirmed(String rule) {
        forRule(rule).unconfirmed().record();
    }

    private RuleSensors forRule(String rule) {
        return byRule.computeIfAbsent(
                rule,
                name -> new RuleSensors(
                        metrics.counter(TtlMetrics.EMITTED, name),
                        metrics.lag(TtlMetrics.EXPIRY_LAG, "expiry lag (command emitted minus deadline)", name),
                        metrics.counter(TtlMetrics.CONFIRMED, name),
                        metrics.lag(TtlMetrics.CONFIRMED_LAG, "confirmed lag (delete event minus deadline)", name),
                        metrics.counter(TtlMetrics.UNCONFIRMED, name)));
    }
}
