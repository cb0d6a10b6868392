package io.ttlstreams.readback;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.ExpirySchedule;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonValue;

/**
 * A task's request to read one document back, for the schedule entry it had when asked: the answer applies only if
 * the entry is still that one ({@link #isFor}), since any change event may have moved it meanwhile.
 *
 * @param documentRef the document ({@link DocumentRef})
 * @param namespace the document's collection, from the task's dictionary (the read-back thread has none)
 * @param fingerprint the entry's {@link ExpirySchedule#fingerprint}
 * @param attempts the entry's delete commands emitted so far
 * @param inbox where the answer goes
 */
public record ReadRequest(Bytes documentRef, Namespace namespace, long fingerprint, int attempts, ReadBackInbox inbox) {

    /** The request for {@code entry}, the current entry of {@code documentRef}, in {@code namespace}. */
    public static ReadRequest of(Bytes documentRef, Namespace namespace, ScheduleEntry entry, ReadBackInbox inbox) {
        return new ReadRequest(documentRef, namespace, ExpirySchedule.fingerprint(entry), entry.getAttempts(), inbox);
    }

    /** Whether {@code entry} is the entry this request was made for. */
    public boolean isFor(ScheduleEntry entry) {
        return entry.getAttempts() == attempts && ExpirySchedule.fingerprint(entry) == fingerprint;
    }

    /** The document's {@code _id}; null if its key has none, which a change event's key always has. */
    public BsonValue id() {
        return DocumentRef.idKeyOf(documentRef).get("_id");
    }
}
