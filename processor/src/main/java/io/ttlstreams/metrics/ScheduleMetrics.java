package io.ttlstreams.metrics;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.ttlstreams.query.LocalSchedule;
import io.ttlstreams.state.ScheduleQueries.Backlog;
import java.time.Clock;
import java.time.Duration;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * The schedule of this instance's active tasks as gauges, read from the stores at scrape time: {@code
 * ttl_schedule_documents} (scheduled), {@code ttl_schedule_due} (deadline passed, command not yet emitted: the
 * backlog), {@code ttl_schedule_oldest_overdue_seconds} (how late the oldest of them is) and {@code
 * ttl_schedule_awaiting_confirmation} (commands out, delete events not yet seen). One reading answers all four and is
 * reused for a second, so that a scrape costs two bounded range scans per partition.
 */
public final class ScheduleMetrics {

    static final String DOCUMENTS_GAUGE = "ttl.schedule.documents";
    static final String DUE_GAUGE = "ttl.schedule.due";
    static final String OLDEST_OVERDUE_GAUGE = "ttl.schedule.oldest.overdue";
    static final String AWAITING_GAUGE = "ttl.schedule.awaiting.confirmation";

    private static final Duration REUSE = Duration.ofSeconds(1);

    private final LocalSchedule local;
    private final Clock clock;
    private Snapshot last;

    public ScheduleMetrics(LocalSchedule local, MeterRegistry registry, Clock clock) {
        this.local = local;
        this.clock = clock;
        Gauge.builder(DOCUMENTS_GAUGE, () -> orNaN(snapshot().scheduled()))
                .description("Documents scheduled in this instance's active tasks (RocksDB's estimate)")
                .register(registry);
        Gauge.builder(DUE_GAUGE, () -> orNaN(snapshot().due()))
                .description("Documents past their deadline whose delete command is not yet emitted (counted up to "
                        + LocalSchedule.DUE_SCAN_LIMIT + " per partition)")
                .register(registry);
        Gauge.builder(
                        OLDEST_OVERDUE_GAUGE,
                        () -> snapshot().oldestOverdueSeconds().orElse(Double.NaN))
                .description("How long ago the deadline of the oldest due document passed; 0 when none is due")
                .baseUnit("seconds")
                .register(registry);
        Gauge.builder(AWAITING_GAUGE, () -> orNaN(snapshot().awaitingConfirmation()))
                .description("Documents whose delete command went out and awaits its delete event (counted up to "
                        + LocalSchedule.DUE_SCAN_LIMIT + " per partition)")
                .register(registry);
    }

    /** The schedule's figures, at most a second old; empty figures while the stores cannot be queried. */
    public synchronized Snapshot snapshot() {
        long now = clock.millis();
        if (last == null || now - last.takenAtMillis() >= REUSE.toMillis() || now < last.takenAtMillis()) {
            last = take(now);
        }
        return last;
    }

    private Snapshot take(long now) {
        try {
            long scheduled = local.scheduled();
            Backlog due = local.due(now);
            double oldestOverdue = due.oldestDeadline().isPresent()
                    ? Math.max(0, now - due.oldestDeadline().getAsLong()) / 1000.0
                    : 0;
            return new Snapshot(
                    now,
                    OptionalLong.of(scheduled),
                    OptionalLong.of(due.due()),
                    due.complete(),
                    OptionalDouble.of(oldestOverdue),
                    OptionalLong.of(local.awaitingConfirmation()));
        } catch (InvalidStateStoreException e) {
            return new Snapshot(
                    now,
                    OptionalLong.empty(),
                    OptionalLong.empty(),
                    false,
                    OptionalDouble.empty(),
                    OptionalLong.empty());
        }
    }

    private static double orNaN(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : Double.NaN;
    }

    /**
     * The schedule at one moment, as {@code /v1/status} shows it (empty figures as null).
     *
     * @param takenAtMillis when it was read
     * @param scheduled scheduled documents; empty while the stores cannot be queried
     * @param due due documents; empty likewise
     * @param dueComplete false when the count stopped at its limit (or is missing)
     * @param oldestOverdueSeconds how late the oldest due document is; 0 when none is due, empty likewise
     * @param awaitingConfirmation documents whose delete command awaits confirmation; empty likewise
     */
    public record Snapshot(
            @JsonIgnore long takenAtMillis,
            OptionalLong scheduled,
            OptionalLong due,
            boolean dueComplete,
            OptionalDouble oldestOverdueSeconds,
            OptionalLong awaitingConfirmation) {}
}
