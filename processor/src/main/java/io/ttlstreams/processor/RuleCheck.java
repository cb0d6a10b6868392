package io.ttlstreams.processor;

import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentEntry;

/**
 * What the current rules make of a due entry, computed under possibly older ones: the {@link RuleReconciler}'s check,
 * as {@link DueDrain} takes it from {@link ExpirySchedulerProcessor}.
 */
@FunctionalInterface
interface RuleCheck {

    /**
     * Returns the entry {@code due} at {@code now}, to go on with (possibly with a recomputed deadline; it stays where
     * it is, for the caller to move); null when it left (cancelled, held) or moved to another time.
     */
    ScheduleEntry current(DocumentEntry due, ScheduleEntry entry, long now);
}
