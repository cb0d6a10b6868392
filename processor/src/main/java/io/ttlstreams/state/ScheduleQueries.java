package io.ttlstreams.state;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.bson.BsonDocument;

/**
 * Read-only questions to the schedule of one instance, for operators (interactive queries over the {@link
 * ScheduleStores#SCHEDULE} and {@link ScheduleStores#INDEX} stores): when does this document expire, and how many
 * documents expire in each upcoming time bucket, how many are due. The answers cover the stores they are given: one
 * partition's, or all this instance owns.
 */
public final class ScheduleQueries {

    private ScheduleQueries() {}

    /**
     * One document's entry in the schedule.
     *
     * @param namespace the document's collection
     * @param documentKey the document key
     * @param deadline when the document expires
     * @param rule the rule that set the deadline
     */
    public record ScheduledDocument(Namespace namespace, BsonDocument documentKey, Instant deadline, String rule) {}

    /** The document's entry; empty when it is not scheduled here. */
    public static Optional<ScheduledDocument> find(
            ReadOnlyKeyValueStore<Bytes, IndexEntry> index,
            ReadOnlyKeyValueStore<Bytes, ScheduleEntry> schedule,
            Namespace namespace,
            BsonDocument documentKey) {
        Bytes ref = DocumentRef.of(namespace, CanonicalJson.of(documentKey));
        IndexEntry position = index.get(ref);
        if (position == null) {
            return Optional.empty();
        }
        long deadline = position.getDeadline().toEpochMilli();
        ScheduleEntry entry = schedule.get(ScheduleKey.of(deadline, ref));
        if (entry == null) {
            return Optional.empty(); // moved between the two reads
        }
        return Optional.of(
                new ScheduledDocument(namespace, documentKey, Instant.ofEpochMilli(deadline), entry.getRule()));
    }

    /**
     * How many documents expire in each bucket of {@code bucketMillis} from {@code fromMillis} (inclusive) to {@code
     * toMillis} (exclusive), keyed by bucket start; buckets without documents are left out. The scan is a range over
     * the schedule's key order and stops after {@code maxEntries} entries, so that a huge schedule cannot make one
     * question expensive; {@link Histogram#complete()} tells whether it stopped early.
     *
     * @param namespace only this collection's documents; empty for all
     */
    public static Histogram upcoming(
            ReadOnlyKeyValueStore<Bytes, ScheduleEntry> schedule,
            long fromMillis,
            long toMillis,
            long bucketMillis,
            Optional<Namespace> namespace,
            long maxEntries) {
        if (bucketMillis <= 0 || toMillis <= fromMillis) {
            throw new IllegalArgumentException("Need bucketMillis > 0 and toMillis > fromMillis");
        }
        Objects.requireNonNull(namespace, "namespace");
        SortedMap<Long, Long> counts = new TreeMap<>();
        long scanned = 0;
        try (KeyValueIterator<Bytes, ScheduleEntry> entries =
                schedule.range(ScheduleKey.lowerBound(fromMillis), ScheduleKey.dueUpperBound(toMillis - 1))) {
            while (entries.hasNext()) {
                if (scanned == maxEntries) {
                    return new Histogram(counts, false);
                }
                KeyValue<Bytes, ScheduleEntry> entry = entries.next();
                scanned++;
                if (namespace.isPresent()
                        && !DocumentRef.namespaceOf(ScheduleKey.documentRefOf(entry.key))
                                .equals(namespace.get())) {
                    continue;
                }
                long deadline = ScheduleKey.deadlineOf(entry.key);
                long bucket = fromMillis + Math.floorDiv(deadline - fromMillis, bucketMillis) * bucketMillis;
                counts.merge(bucket, 1L, Long::sum);
            }
        }
        return new Histogram(counts, true);
    }

    /**
     * Documents per bucket.
     *
     * @param counts bucket start (epoch milliseconds) to the number of documents expiring in it
     * @param complete false when the scan stopped at its entry limit, so later buckets are undercounted
     */
    public record Histogram(SortedMap<Long, Long> counts, boolean complete) {}

    /**
     * The entries due at {@code nowMillis} (deadline at or before it, delete command not yet emitted): a range scan
     * from the start of the schedule that stops after {@code maxEntries} entries, so that a huge backlog cannot make
     * one question expensive.
     */
    public static Backlog due(ReadOnlyKeyValueStore<Bytes, ScheduleEntry> schedule, long nowMillis, long maxEntries) {
        long count = 0;
        long oldest = Long.MAX_VALUE;
        try (KeyValueIterator<Bytes, ScheduleEntry> due =
                schedule.range(ScheduleKey.lowest(), ScheduleKey.dueUpperBound(nowMillis))) {
            while (due.hasNext()) {
                if (count == maxEntries) {
                    return new Backlog(count, false, OptionalLong.of(oldest));
                }
                // A composite store over several partitions yields each partition's range in turn, so the first
                // entry is the oldest of one partition only: take the minimum.
                oldest = Math.min(oldest, ScheduleKey.deadlineOf(due.next().key));
                count++;
            }
        }
        return new Backlog(count, true, count == 0 ? OptionalLong.empty() : OptionalLong.of(oldest));
    }

    /**
     * The due part of a schedule.
     *
     * @param due entries whose deadline has passed, up to the scan's limit
     * @param complete false when the scan stopped at its limit, so there are more
     * @param oldestDeadline the earliest deadline among them (epoch milliseconds); empty when none is due
     */
    public record Backlog(long due, boolean complete, OptionalLong oldestDeadline) {

        /** Nothing due. */
        public static final Backlog NONE = new Backlog(0, true, OptionalLong.empty());

        /** This backlog and another partition's together. */
        public Backlog plus(Backlog other) {
            OptionalLong oldest = oldestDeadline.isEmpty()
                    ? other.oldestDeadline
                    : other.oldestDeadline.isEmpty()
                            ? oldestDeadline
                            : OptionalLong.of(Math.min(oldestDeadline.getAsLong(), other.oldestDeadline.getAsLong()));
            return new Backlog(due + other.due, complete && other.complete, oldest);
        }
    }
}
