package io.ttlstreams.state;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import org.apache.kafka.common.utils.Bytes;

/**
 * A document's entry as {@link ExpirySchedule#find}, a drain or a walk hands it over: the document and the lifecycle
 * state its entry is in, derived once ({@link EntryState#at}). It is what the schedule's operations take: where the
 * entry is stored stays the schedule's.
 */
public final class DocumentEntry {

    private final Bytes documentRef;
    private final Bytes key;
    private final EntryState state;
    /** Its index entry, when found by document; null when handed over by a drain or a walk, which read none. */
    private final IndexEntry position;

    DocumentEntry(Bytes documentRef, Bytes key, EntryState state, IndexEntry position) {
        this.documentRef = documentRef;
        this.key = key;
        this.state = state;
        this.position = position;
    }

    /** The document. */
    public Bytes documentRef() {
        return documentRef;
    }

    /** The lifecycle state of its entry. */
    public EntryState state() {
        return state;
    }

    /**
     * When the entry is due in its state (epoch milliseconds): its deadline while {@link EntryState#SCHEDULED}, held
     * or awaiting approval, the retry time while awaiting a later confirmation.
     */
    public long dueAt() {
        return ScheduleKey.dueAtOf(key);
    }

    /**
     * The clusterTime of the change that set the entry, for an entry {@link ExpirySchedule#find found} by document;
     * null when unknown.
     */
    public Long changedAt() {
        return position == null ? null : position.getSourceClusterTime();
    }

    /**
     * Whether the entry, {@link ExpirySchedule#find found} by document, was computed from the same values as {@code
     * entry} (its {@link ExpirySchedule#fingerprint}); false for one handed over by a drain or a walk.
     */
    public boolean computedFrom(ScheduleEntry entry) {
        return position != null && position.getFingerprint() == ExpirySchedule.fingerprint(entry);
    }

    Bytes key() {
        return key;
    }
}
