package io.ttlstreams.state;

import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;

/**
 * The expiry schedule over its two stores, keeping them consistent: every document has at most one
 * entry in {@code schedule} (keyed by deadline, then document) and the {@code index} entry that
 * points to it. Updates move the entry with point lookups; finding due entries is a range scan from
 * the lowest key to "now", never a scan of the whole store.
 */
public final class ExpirySchedule {

    private final KeyValueStore<Bytes, ScheduleEntry> schedule;
    private final KeyValueStore<Bytes, IndexEntry> index;

    /**
     * @param schedule the {@link ScheduleStores#SCHEDULE} store
     * @param index the {@link ScheduleStores#INDEX} store
     */
    public ExpirySchedule(KeyValueStore<Bytes, ScheduleEntry> schedule, KeyValueStore<Bytes, IndexEntry> index) {
        this.schedule = schedule;
        this.index = index;
    }

    /** Schedules the entry's document, replacing its earlier entry if any. */
    public void put(ScheduleEntry entry) {
        Bytes ref = DocumentRef.of(entry.getNamespace(), entry.getDocumentKey());
        IndexEntry previous = index.get(ref);
        if (previous != null) {
            schedule.delete(ScheduleKey.of(previous.getDeadline().toEpochMilli(), ref));
        }
        schedule.put(ScheduleKey.of(entry.getDeadline().toEpochMilli(), ref), entry);
        index.put(ref, new IndexEntry(entry.getDeadline(), entry.getRule(), entry.getSourceClusterTime()));
    }

    /** Cancels the document's entry; returns whether there was one. */
    public boolean remove(Bytes documentRef) {
        IndexEntry previous = index.delete(documentRef);
        if (previous == null) {
            return false;
        }
        schedule.delete(ScheduleKey.of(previous.getDeadline().toEpochMilli(), documentRef));
        return true;
    }

    /**
     * Cancels the entries under a {@link DocumentRef} prefix (a collection or a whole database) that
     * were scheduled by events no later than {@code clusterTime}; all of them when it is null.
     *
     * @return how many entries were cancelled
     */
    public int removeAll(Bytes prefix, Long clusterTime) {
        int count = 0;
        try (KeyValueIterator<Bytes, IndexEntry> entries = index.prefixScan(prefix, new BytesSerializer())) {
            while (entries.hasNext()) {
                KeyValue<Bytes, IndexEntry> entry = entries.next();
                Long scheduledAt = entry.value.getSourceClusterTime();
                if (clusterTime == null || scheduledAt == null || scheduledAt <= clusterTime) {
                    // Deleting behind a RocksDB iterator is safe: the iterator reads a consistent view.
                    schedule.delete(ScheduleKey.of(entry.value.getDeadline().toEpochMilli(), entry.key));
                    index.delete(entry.key);
                    count++;
                }
            }
        }
        return count;
    }

    /** The entries due at {@code nowMs} (deadline at or before it), oldest first. The caller closes it. */
    public KeyValueIterator<Bytes, ScheduleEntry> due(long nowMs) {
        return schedule.range(ScheduleKey.lowest(), ScheduleKey.dueUpperBound(nowMs));
    }

    /** Removes an entry returned by {@link #due(long)}, and its index entry. */
    public void removeDue(Bytes scheduleKey) {
        schedule.delete(scheduleKey);
        index.delete(ScheduleKey.documentRefOf(scheduleKey));
    }
}
