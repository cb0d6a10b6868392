package io.ttlstreams.processor;

import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.ScheduleKey.Timeline;
import org.apache.kafka.common.utils.Bytes;

/**
 * Which timeline an entry the schedule learns of goes on: the {@link BlastRadiusGuard}'s admission, as the parts that
 * schedule take it from {@link ExpirySchedulerProcessor}.
 */
@FunctionalInterface
interface Admission {

    /**
     * The timeline for the entry of document {@code ref} with {@code deadline}: deadlines, unless it is due on arrival
     * past its rule's limit, in which case it is counted and audited as held and belongs on the awaiting-approval
     * timeline. The caller puts it there.
     *
     * @param learntAt when the deadline became known: the document's change for an event (so that a document written
     *     with a future deadline that a lagging processor sees late is organic, not due on arrival), now for a
     *     deadline a changed rule or a read-back moved
     */
    Timeline admit(Bytes ref, ScheduleEntry entry, long deadline, long learntAt, long now);
}
