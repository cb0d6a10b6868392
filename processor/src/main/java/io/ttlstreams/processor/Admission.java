package io.ttlstreams.processor;

import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.EntryState;
import org.apache.kafka.common.utils.Bytes;

/**
 * Which state an entry the schedule learns of starts in: the {@link BlastRadiusGuard}'s admission, as the parts that
 * schedule take it from {@link ExpirySchedulerProcessor}.
 */
@FunctionalInterface
interface Admission {

    /**
     * The state for the entry of document {@code ref} with {@code deadline}: {@link EntryState#SCHEDULED}, unless it
     * is due on arrival past its rule's limit, in which case it is counted and audited as held and {@link
     * EntryState#AWAITING_APPROVAL}. The caller puts it there.
     *
     * @param learntAt when the deadline became known: the document's change for an event (so that a document written
     *     with a future deadline that a lagging processor sees late is organic, not due on arrival), now for a
     *     deadline a changed rule or a read-back moved
     */
    EntryState admit(Bytes ref, ScheduleEntry entry, long deadline, long learntAt, long now);
}
