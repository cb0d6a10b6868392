package io.ttlstreams.state;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import java.time.Instant;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The expiry schedule over its two stores, keeping them consistent: every document has at most one
 * entry in {@code schedule} (keyed by deadline, then document) and the {@code index} entry that
 * points to it. Updates move the entry with point lookups; finding due entries is a range scan up to
 * "now", never a scan of the whole store.
 *
 * <p>The scan starts where the last one left off, not at the lowest key: every expiry deletes the
 * head of the key space, and RocksDB would otherwise step over all those tombstones, until the next
 * compaction, on every punctuation. The position is kept in memory, lowered by any entry scheduled
 * before it, and starts at the lowest key when the task (re)starts; so one instance must be the
 * only writer of its stores, as the task's scheduler is.
 */
public final class ExpirySchedule {

    private final KeyValueStore<Bytes, ScheduleEntry> schedule;
    private final KeyValueStore<Bytes, IndexEntry> index;
    /** No entry has a deadline before this (see the class comment). */
    private long scanFrom = Long.MIN_VALUE;

    /**
     * @param schedule the {@link ScheduleStores#SCHEDULE} store
     * @param index the {@link ScheduleStores#INDEX} store
     */
    public ExpirySchedule(KeyValueStore<Bytes, ScheduleEntry> schedule, KeyValueStore<Bytes, IndexEntry> index) {
        this.schedule = schedule;
        this.index = index;
    }

    /**
     * Schedules a document, replacing its earlier entry if any.
     *
     * @param documentRef the document's {@link DocumentRef}
     * @param deadlineMs its deadline, epoch milliseconds
     * @param entry its delete command's rule and filter
     * @param clusterTime the scheduling event's clusterTime, or null
     */
    public void put(Bytes documentRef, long deadlineMs, ScheduleEntry entry, Long clusterTime) {
        IndexEntry previous = index.get(documentRef);
        if (previous != null) {
            schedule.delete(ScheduleKey.of(previous.getDeadline().toEpochMilli(), documentRef));
        }
        schedule.put(ScheduleKey.of(deadlineMs, documentRef), entry);
        index.put(documentRef, new IndexEntry(Instant.ofEpochMilli(deadlineMs), clusterTime));
        scanFrom = Math.min(scanFrom, deadlineMs);
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

    /**
     * The entries due at {@code nowMs} (deadline at or before it), oldest first. The caller removes
     * them in order with {@link #removeDue}, stops whenever its budget is spent, calls
     * {@link #drained(long)} if it reached the end, and closes the iterator.
     */
    public KeyValueIterator<Bytes, ScheduleEntry> due(long nowMs) {
        return schedule.range(ScheduleKey.lowerBound(scanFrom), ScheduleKey.dueUpperBound(nowMs));
    }

    /** Removes an entry returned by {@link #due(long)}, and its index entry. */
    public void removeDue(Bytes scheduleKey) {
        schedule.delete(scheduleKey);
        index.delete(ScheduleKey.documentRefOf(scheduleKey));
        // Entries are removed in key order: nothing before this deadline is left.
        scanFrom = Math.max(scanFrom, ScheduleKey.deadlineOf(scheduleKey));
    }

    /** Tells that every entry due at {@code nowMs} was removed: the next scan starts after it. */
    public void drained(long nowMs) {
        if (nowMs < Long.MAX_VALUE) {
            scanFrom = Math.max(scanFrom, nowMs + 1);
        }
    }
}
