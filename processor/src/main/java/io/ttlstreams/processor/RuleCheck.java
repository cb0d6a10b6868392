package io.ttlstreams.processor;

import io.ttlstreams.schema.ScheduleEntry;
import org.apache.kafka.common.utils.Bytes;

/**
 * What the current rules make of a due entry, computed under possibly older ones: the {@link RuleReconciler}'s check,
 * as {@link DueDrain} takes it from {@link ExpirySchedulerProcessor}.
 */
@FunctionalInterface
interface RuleCheck {

    /**
     * Returns the entry at {@code key}, due at {@code now}, to go on with (possibly with a recomputed deadline; it
     * stays at its key, which the caller then moves); null when it left (cancelled, held) or moved to another time.
     */
    ScheduleEntry current(Bytes key, ScheduleEntry entry, long now);
}
