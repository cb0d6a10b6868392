package io.ttlstreams.state;

import io.ttlstreams.schema.UnscheduledNote;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Why documents are not scheduled, remembered in a bounded way: a note per document whose latest change event gave
 * it no deadline (a missing field, a string where a date is needed, a partial filter that does not match, ...), in a
 * fixed number of {@link #SLOTS} per task, a slot being a hash of the document reference. A slot holds the note of
 * the latest document hashed to it, so the store never grows past {@link #SLOTS} entries, whatever the collection's
 * size, and a note lives until that many other unscheduled documents came by, on average.
 *
 * <p>The path of a scheduled document stays as it was: the fingerprints of the slots are kept in memory (12 bytes
 * a slot), so that a document given a deadline is checked for a note of its own without a store read, and the store
 * is written only when a note comes, changes or goes. One writer per task, like {@link ExpirySchedule}.
 */
public final class UnscheduledNotes {

    /** Notes per task: 4,096, about 1 MB of store for keys of 100 bytes and reasons of 150. */
    public static final int SLOTS = 4_096;

    /** A reason is cut here: it can quote a document's value, which may be large. */
    static final int MAX_REASON_CHARS = 500;

    private final KeyValueStore<Integer, UnscheduledNote> store;
    /** Per slot: the fingerprint of the reference whose note it holds; 0 for none. */
    private final long[] fingerprints = new long[SLOTS];
    /** Per slot: the hash of its note's reason. */
    private final int[] reasons = new int[SLOTS];

    /** @param store the {@link ScheduleStores#UNSCHEDULED_NOTES} store, read once here */
    public UnscheduledNotes(KeyValueStore<Integer, UnscheduledNote> store) {
        this.store = store;
        try (KeyValueIterator<Integer, UnscheduledNote> notes = store.all()) {
            while (notes.hasNext()) {
                KeyValue<Integer, UnscheduledNote> note = notes.next();
                if (note.key >= 0 && note.key < SLOTS) {
                    fingerprints[note.key] = fingerprint(Utils.toArray(note.value.getDocumentRef()));
                    reasons[note.key] = note.value.getReason().hashCode();
                } else {
                    store.delete(note.key); // of a build with more slots
                }
            }
        }
    }

    /**
     * Notes that the document is not scheduled, for {@code reason}, as a change event of {@code operation} at {@code
     * eventTime} found; a note that says the same already stays as it is.
     */
    public void note(Bytes documentRef, String reason, String operation, Instant eventTime) {
        String cut = reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS) + "...";
        long fingerprint = fingerprint(documentRef.get());
        int slot = slot(fingerprint);
        if (fingerprints[slot] == fingerprint && reasons[slot] == cut.hashCode()) {
            return;
        }
        store.put(slot, new UnscheduledNote(ByteBuffer.wrap(documentRef.get()), cut, operation, eventTime));
        fingerprints[slot] = fingerprint;
        reasons[slot] = cut.hashCode();
    }

    /** Forgets the document's note, if there is one: it was scheduled or deleted. A memory check, mostly. */
    public void forget(Bytes documentRef) {
        long fingerprint = fingerprint(documentRef.get());
        int slot = slot(fingerprint);
        if (fingerprints[slot] == fingerprint) {
            store.delete(slot);
            fingerprints[slot] = 0;
        }
    }

    /** Forgets the notes of every document under a {@link DocumentRef} prefix: a dropped collection or database. */
    public void forgetAll(Bytes prefix) {
        byte[] start = prefix.get();
        try (KeyValueIterator<Integer, UnscheduledNote> notes = store.all()) {
            while (notes.hasNext()) {
                KeyValue<Integer, UnscheduledNote> note = notes.next();
                byte[] ref = Utils.toArray(note.value.getDocumentRef());
                if (ref.length >= start.length && Arrays.equals(ref, 0, start.length, start, 0, start.length)) {
                    store.delete(note.key);
                    fingerprints[note.key] = 0;
                }
            }
        }
    }

    /** The note of the document with reference {@code documentRef} in {@code store}; empty when it has none. */
    public static Optional<UnscheduledNote> find(
            ReadOnlyKeyValueStore<Integer, UnscheduledNote> store, Bytes documentRef) {
        UnscheduledNote note = store.get(slot(fingerprint(documentRef.get())));
        return note != null && Bytes.wrap(Utils.toArray(note.getDocumentRef())).equals(documentRef)
                ? Optional.of(note)
                : Optional.empty();
    }

    private static int slot(long fingerprint) {
        return (int) (fingerprint & (SLOTS - 1));
    }

    /** FNV-1a, 64 bits, never 0 (which marks an empty slot). */
    private static long fingerprint(byte[] ref) {
        long hash = ExpirySchedule.fnv1a(ExpirySchedule.FNV_OFFSET_BASIS, ByteBuffer.wrap(ref));
        return hash == 0 ? 1 : hash;
    }
}
