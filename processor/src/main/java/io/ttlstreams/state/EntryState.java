package io.ttlstreams.state;

import io.ttlstreams.state.ScheduleKey.Timeline;
import org.apache.kafka.common.utils.Bytes;

/**
 * Where a document's entry stands in its lifecycle, derived by one rule ({@link #at}) from where the entry is stored
 * and how far the task's deadline scan has emitted ({@link EmittedDeadlines}, whose invariant makes the rule true);
 * the same rule gives the key range of each state ({@link #firstKey}, {@link #lastKey}):
 *
 * <ul>
 *   <li>{@link #SCHEDULED}: on the deadlines timeline after the emitted position, waiting for its deadline;
 *   <li>{@link #AWAITING_FIRST_CONFIRMATION}: on the deadlines timeline at or before the emitted position, its first
 *       delete command out, the change stream's delete event not yet in (a first command moves nothing: the
 *       position says it went out);
 *   <li>{@link #AWAITING_CONFIRMATION}: on the confirmations timeline, a later command (or a read-back) out;
 *   <li>{@link #HELD}: its rule changed in a way that needs the document again;
 *   <li>{@link #AWAITING_APPROVAL}: due on arrival past its rule's blast-radius limit, held for an operator.
 * </ul>
 *
 * <p>A pending notice is not a state of the entry: it is a copy of a scheduled entry on the notices timeline.
 */
public enum EntryState {
    SCHEDULED("scheduled", Timeline.DEADLINES),
    AWAITING_FIRST_CONFIRMATION("awaiting-confirmation", Timeline.DEADLINES),
    AWAITING_CONFIRMATION("awaiting-confirmation", Timeline.CONFIRMATIONS),
    HELD("held", Timeline.HELD),
    AWAITING_APPROVAL("awaiting-approval", Timeline.AWAITING_APPROVAL);

    private final String label;
    private final Timeline timeline;

    EntryState(String label, Timeline timeline) {
        this.label = label;
        this.timeline = timeline;
    }

    /** How {@code GET /v1/documents} names it: both waits for a confirmation read {@code awaiting-confirmation}. */
    public String label() {
        return label;
    }

    /** Whether a delete command of the entry is out and the change stream's confirmation awaited. */
    public boolean awaitsConfirmation() {
        return this == AWAITING_FIRST_CONFIRMATION || this == AWAITING_CONFIRMATION;
    }

    /**
     * The state of the entry stored at {@code scheduleKey}: the one rule. An entry of the deadlines timeline at or
     * before the emitted position awaits its first confirmation, because nothing unemitted is ever put there ({@link
     * EmittedDeadlines}); any other entry is in the state of its timeline.
     *
     * @throws IllegalArgumentException for a notice's key, which is no document's entry
     */
    static EntryState at(Bytes scheduleKey, EmittedDeadlines emitted) {
        Timeline timeline = ScheduleKey.timelineOf(scheduleKey);
        return switch (timeline) {
            case DEADLINES -> emitted.emitted(scheduleKey) ? AWAITING_FIRST_CONFIRMATION : SCHEDULED;
            case CONFIRMATIONS -> AWAITING_CONFIRMATION;
            case HELD -> HELD;
            case AWAITING_APPROVAL -> AWAITING_APPROVAL;
            case NOTICES -> throw new IllegalArgumentException("A notice is a copy of an entry, not an entry");
        };
    }

    /** The timeline an entry in this state is stored on. */
    Timeline timeline() {
        return timeline;
    }

    /** The first key an entry in this state can have. */
    Bytes firstKey(EmittedDeadlines emitted) {
        Bytes position = emitted.position();
        if (this == SCHEDULED && position != null) {
            return EmittedDeadlines.successor(position);
        }
        return ScheduleKey.lowerBound(timeline, Long.MIN_VALUE);
    }

    /** The last key an entry in this state due at or before {@code dueBy} can have; null when none can. */
    Bytes lastKey(EmittedDeadlines emitted, long dueBy) {
        Bytes last = ScheduleKey.dueUpperBound(timeline, dueBy);
        if (this != AWAITING_FIRST_CONFIRMATION) {
            return last;
        }
        Bytes position = emitted.position();
        if (position == null) {
            return null;
        }
        return last.compareTo(position) < 0 ? last : position;
    }
}
