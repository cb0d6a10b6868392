package io.ttlstreams.state;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.HeldCount;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.bson.BsonDocument;

/**
 * Read-only questions to the schedule of one instance, for operators (interactive queries over the {@link
 * ScheduleStores#SCHEDULE}, {@link ScheduleStores#INDEX} and {@link ScheduleStores#TASK} stores): when does this document expire, how many
 * documents expire in each upcoming time bucket, how many are due or await confirmation. The answers cover the tasks
 * this instance owns; every scan is a key range with a cap, so no question costs a scan of the whole store.
 */
public final class ScheduleQueries {

    private ScheduleQueries() {}

    /**
     * One document's entry in the schedule.
     *
     * @param namespace the document's collection
     * @param documentKey the document key as the latest event reported it (a sharded collection's shard key fields
     *     and {@code _id}), whatever key the document was asked by: a document is found by its {@code _id}
     * @param state {@code scheduled} (waiting for its deadline), {@code awaiting-confirmation} (its delete command
     *     went out; the change stream has not reported the delete yet) or {@code held} (its rule changed in a way
     *     that needs the document again)
     * @param deadline when the document expires (expired)
     * @param rule the rule that set the deadline
     * @param attempts delete commands emitted so far
     * @param notice when its {@code EXPIRING} notice is due, while one is pending; null otherwise
     */
    public record ScheduledDocument(
            Namespace namespace,
            BsonDocument documentKey,
            String state,
            Instant deadline,
            String rule,
            int attempts,
            Instant notice) {}

    /**
     * The document's entry; empty when it is not scheduled here.
     *
     * @param noticeBeforeSeconds each rule's notice period ({@code notice.before.seconds}), empty for a rule without
     */
    public static Optional<ScheduledDocument> find(
            ReadOnlyKeyValueStore<Bytes, IndexEntry> index,
            ReadOnlyKeyValueStore<Bytes, ScheduleEntry> schedule,
            ReadOnlyKeyValueStore<Bytes, TaskRecord> task,
            Namespace namespace,
            BsonDocument documentKey,
            Function<String, OptionalLong> noticeBeforeSeconds) {
        Optional<Bytes> known = NamespaceIds.readOnly(task).find(namespace, documentKey);
        if (known.isEmpty()) {
            return Optional.empty(); // a namespace this partition has never seen
        }
        Bytes ref = known.get();
        EmittedDeadlines emitted = EmittedDeadlines.readOnly(task);
        DocumentEntry found = ExpirySchedule.find(index, ref, emitted);
        if (found == null) {
            return Optional.empty();
        }
        EntryState state = found.state();
        ScheduleEntry entry = emitted.asItStands(found.key(), schedule.get(found.key()));
        if (entry == null) {
            return Optional.empty(); // moved between the two reads
        }
        long deadline = entry.getBase().toEpochMilli() + entry.getOffsetSeconds() * 1000;
        OptionalLong before = noticeBeforeSeconds.apply(entry.getRule());
        Instant notice = null;
        if (state == EntryState.SCHEDULED && before.isPresent()) {
            long noticeAt = deadline - before.getAsLong() * 1000;
            if (schedule.get(ScheduleKey.of(Timeline.NOTICES, noticeAt, ref)) != null) {
                notice = Instant.ofEpochMilli(noticeAt);
            }
        }
        return Optional.of(new ScheduledDocument(
                namespace,
                DocumentRef.documentKeyOf(ref, entry),
                state.label(),
                Instant.ofEpochMilli(deadline),
                entry.getRule(),
                entry.getAttempts(),
                notice));
    }

    /**
     * How many documents are to expire in each bucket of {@code bucketMillis} from {@code fromMillis} (inclusive) to
     * {@code toMillis} (exclusive), keyed by bucket start; buckets without documents are left out. The scan stops
     * after {@code maxEntries} entries; {@link Histogram#complete()} tells whether it did. One partition's stores:
     * the namespace's ids are the partition's own.
     *
     * @param namespace only this collection's documents; empty for all
     */
    public static Histogram upcoming(
            ReadOnlyKeyValueStore<Bytes, TaskRecord> task,
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
        Optional<Bytes> only =
                namespace.flatMap(ns -> NamespaceIds.readOnly(task).collectionPrefix(ns));
        if (namespace.isPresent() && only.isEmpty()) {
            return new Histogram(counts, true); // a namespace this partition has never seen
        }
        long scanned = 0;
        try (KeyValueIterator<Bytes, ScheduleEntry> entries = schedule.range(
                ScheduleKey.lowerBound(Timeline.DEADLINES, fromMillis),
                ScheduleKey.dueUpperBound(Timeline.DEADLINES, toMillis - 1))) {
            while (entries.hasNext()) {
                if (scanned == maxEntries) {
                    return new Histogram(counts, false);
                }
                KeyValue<Bytes, ScheduleEntry> entry = entries.next();
                scanned++;
                if (only.isPresent()
                        && !ScheduleKey.refStartsWith(entry.key, only.get().get())) {
                    continue;
                }
                long deadline = ScheduleKey.dueAtOf(entry.key);
                long bucket = fromMillis + Math.floorDiv(deadline - fromMillis, bucketMillis) * bucketMillis;
                counts.merge(bucket, 1L, Long::sum);
            }
        }
        return new Histogram(counts, true);
    }

    /**
     * Delete commands out and not yet confirmed by the change stream, counted up to {@code cap}: the emitted deadlines
     * awaiting their first confirmation where they are, and the confirmations timeline.
     */
    public static long awaitingConfirmation(
            ReadOnlyKeyValueStore<Bytes, TaskRecord> task,
            ReadOnlyKeyValueStore<Bytes, ScheduleEntry> schedule,
            long cap) {
        EmittedDeadlines emitted = EmittedDeadlines.readOnly(task);
        long count = scan(schedule, emitted, EntryState.AWAITING_FIRST_CONFIRMATION, Long.MAX_VALUE, cap)
                .due();
        return count
                + scan(schedule, emitted, EntryState.AWAITING_CONFIRMATION, Long.MAX_VALUE, cap - count)
                        .due();
    }

    /**
     * What each rule holds for approval: one pair per rule and task ({@code task} may span several partitions), the
     * rule's name and its held count with bounds of the held deadlines.
     */
    public static List<KeyValue<String, HeldCount>> holds(ReadOnlyKeyValueStore<Bytes, TaskRecord> task) {
        return HeldCounts.all(task);
    }

    /**
     * Documents per bucket.
     *
     * @param counts bucket start (epoch milliseconds) to the number of documents expiring in it
     * @param complete false when the scan stopped at its entry limit, so later buckets are undercounted
     */
    public record Histogram(SortedMap<Long, Long> counts, boolean complete) {

        /** Nothing counted, complete. */
        public static final Histogram EMPTY = new Histogram(Collections.emptySortedMap(), true);

        /** This histogram and {@code other}, of other partitions, together. */
        public Histogram plus(Histogram other) {
            SortedMap<Long, Long> sum = new TreeMap<>(counts);
            other.counts.forEach((bucket, count) -> sum.merge(bucket, count, Long::sum));
            return new Histogram(sum, complete && other.complete);
        }
    }

    /**
     * The entries due at {@code nowMillis} (deadline at or before it, delete command not yet emitted): a range scan
     * from where the emitted deadlines end that stops after {@code maxEntries} entries, so that a huge backlog cannot
     * make one question expensive.
     */
    public static Backlog due(
            ReadOnlyKeyValueStore<Bytes, TaskRecord> task,
            ReadOnlyKeyValueStore<Bytes, ScheduleEntry> schedule,
            long nowMillis,
            long maxEntries) {
        return scan(schedule, EmittedDeadlines.readOnly(task), EntryState.SCHEDULED, nowMillis, maxEntries);
    }

    /** The entries in {@code state} due at or before {@code dueBy}, up to {@code cap} of them. */
    private static Backlog scan(
            ReadOnlyKeyValueStore<Bytes, ScheduleEntry> schedule,
            EmittedDeadlines emitted,
            EntryState state,
            long dueBy,
            long cap) {
        Bytes from = state.firstKey(emitted);
        Bytes to = state.lastKey(emitted, dueBy);
        if (to == null || from.compareTo(to) > 0) {
            return Backlog.NONE;
        }
        long count = 0;
        long oldest = Long.MAX_VALUE;
        try (KeyValueIterator<Bytes, ScheduleEntry> due = schedule.range(from, to)) {
            while (due.hasNext()) {
                if (count == cap) {
                    return new Backlog(count, false, OptionalLong.of(oldest));
                }
                // A composite store over several partitions yields each partition's range in turn, so the first
                // entry is the oldest of one partition only: take the minimum.
                oldest = Math.min(oldest, ScheduleKey.dueAtOf(due.next().key));
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
            OptionalLong oldest = LongStream.concat(oldestDeadline.stream(), other.oldestDeadline.stream())
                    .min();
            return new Backlog(due + other.due, complete && other.complete, oldest);
        }
    }
}
