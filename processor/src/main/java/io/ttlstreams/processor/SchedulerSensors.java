package io.ttlstreams.processor;

import org.apache.kafka.common.metrics.Sensor;

/**
 * The sensors the expiry scheduler's parts record into, registered once per task.
 *
 * <p>The read-back sensors exist only when read-back is on (they are null otherwise), so that a processor without
 * read-back reports no read-back metrics.
 */
final class SchedulerSensors {

    final Sensor scheduled;
    final Sensor cancelled;
    final Sensor unchanged;
    final Sensor emitted;
    final Sensor reemitted;
    final Sensor confirmed;
    final Sensor unconfirmed;
    final Sensor dryRuns;
    final Sensor stale;
    final Sensor resyncStale;
    final Sensor documentTtlIgnored;
    final Sensor implausible;
    final Sensor deadLettered;
    final Sensor ruleRemoved;
    final Sensor held;
    final Sensor rescheduled;
    final Sensor heldForApproval;
    final Sensor approved;
    final Sensor rejected;
    final Sensor expiryLag;
    final Sensor confirmedLag;
    final Sensor readBacks;
    final Sensor confirmedByRead;
    final Sensor rescheduledByRead;
    final Sensor readBacksFailed;

    /**
     * @param metrics the task's metrics
     * @param readBack whether read-back is on, which registers its sensors
     */
    SchedulerSensors(TtlMetrics metrics, boolean readBack) {
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
        this.implausible = metrics.counter(TtlMetrics.IMPLAUSIBLE);
        this.deadLettered = metrics.counter(TtlMetrics.DEAD_LETTERED);
        this.ruleRemoved = metrics.counter(TtlMetrics.RULE_REMOVED);
        this.held = metrics.counter(TtlMetrics.HELD);
        this.rescheduled = metrics.counter(TtlMetrics.RESCHEDULED);
        this.heldForApproval = metrics.counter(TtlMetrics.HELD_FOR_APPROVAL);
        this.approved = metrics.counter(TtlMetrics.APPROVED);
        this.rejected = metrics.counter(TtlMetrics.REJECTED);
        this.expiryLag = metrics.lag(TtlMetrics.EXPIRY_LAG_MS, "expiry lag (command emitted minus deadline)");
        this.confirmedLag = metrics.lag(TtlMetrics.CONFIRMED_LAG_MS, "confirmed lag (delete event minus deadline)");
        this.readBacks = readBack ? metrics.counter(TtlMetrics.READ_BACKS) : null;
        this.confirmedByRead = readBack ? metrics.counter(TtlMetrics.CONFIRMED_BY_READ) : null;
        this.rescheduledByRead = readBack ? metrics.counter(TtlMetrics.RESCHEDULED_BY_READ) : null;
        this.readBacksFailed = readBack ? metrics.counter(TtlMetrics.READ_BACKS_FAILED) : null;
    }
}
