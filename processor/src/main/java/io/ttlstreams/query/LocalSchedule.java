package io.ttlstreams.query;

import io.ttlstreams.config.ExpiryEvents;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.HeldCount;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.schema.UnscheduledNote;
import io.ttlstreams.state.NamespaceIds;
import io.ttlstreams.state.ScheduleQueries;
import io.ttlstreams.state.ScheduleQueries.Backlog;
import io.ttlstreams.state.ScheduleQueries.Histogram;
import io.ttlstreams.state.ScheduleQueries.ScheduledDocument;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.state.UnscheduledNotes;
import io.ttlstreams.topology.TtlTopology;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BinaryOperator;
import java.util.function.IntFunction;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.bson.BsonDocument;

/**
 * The schedule of the tasks this instance runs as active, through Kafka Streams' interactive queries. Every method
 * throws {@link InvalidStateStoreException} while the stores cannot be queried (before RUNNING, during a rebalance).
 * It is where {@link DocumentEndpoint} looks documents up on a running instance.
 */
public final class LocalSchedule implements DocumentEndpoint.Lookup {

    /** A scrape or a status page counts at most this many due entries per partition. */
    public static final long DUE_SCAN_LIMIT = 1_000_000;
    /** A histogram request scans at most this many entries per instance. */
    static final long HISTOGRAM_SCAN_LIMIT = 5_000_000;

    private final KafkaStreams streams;
    private final ExpiryEvents events;

    /**
     * @param events the expiry events configured, whose notice periods tell where a document's pending notice is
     */
    public LocalSchedule(KafkaStreams streams, ExpiryEvents events) {
        this.streams = streams;
        this.events = events;
    }

    /** The partitions of the active schedule tasks, each holding one schedule and one index store. */
    List<Integer> activePartitions() {
        return streams.metadataForLocalThreads().stream()
                .map(ThreadMetadata::activeTasks)
                .flatMap(tasks -> tasks.stream()
                        .map(TaskMetadata::taskId)
                        .filter(task -> task.subtopology() == TtlTopology.SCHEDULE_SUBTOPOLOGY)
                        .map(TaskId::partition))
                .distinct()
                .sorted()
                .toList();
    }

    @Override
    public KeyQueryMetadata owner(BsonDocument documentKey) {
        // The source connectors key each change event with {"_id": ...} in canonical extended JSON, whatever shard key
        // fields its documentKey holds (DocumentIdKey), and the default partitioner spreads those bytes: the same
        // bytes name the partition, hence the owner.
        return streams.queryMetadataForKey(
                ScheduleStores.INDEX,
                CanonicalJson.of(
                        documentKey.containsKey("_id") ? new BsonDocument("_id", documentKey.get("_id")) : documentKey),
                Serdes.String().serializer());
    }

    @Override
    public String state() {
        return streams.state().toString();
    }

    @Override
    public Optional<ScheduledDocument> scheduled(int partition, Namespace namespace, BsonDocument documentKey) {
        return ScheduleQueries.find(
                store(ScheduleStores.INDEX, Optional.of(partition)),
                schedule(partition),
                task(partition),
                namespace,
                documentKey,
                events::noticeBeforeSeconds);
    }

    @Override
    public Optional<UnscheduledNote> note(int partition, Namespace namespace, BsonDocument documentKey) {
        return NamespaceIds.readOnly(task(partition))
                .find(namespace, documentKey)
                .flatMap(ref ->
                        UnscheduledNotes.find(store(ScheduleStores.UNSCHEDULED_NOTES, Optional.of(partition)), ref));
    }

    /** Approximate number of scheduled documents over every active partition (RocksDB's estimate). */
    public long scheduled() {
        return this.<Bytes, ScheduleEntry>store(ScheduleStores.SCHEDULE, Optional.empty())
                .approximateNumEntries();
    }

    /** The due entries at {@code nowMillis}, partition by partition, so that each partition's oldest is exact. */
    public Backlog due(long nowMillis) {
        return overPartitions(
                activePartitions(),
                Backlog.NONE,
                Backlog::plus,
                partition -> ScheduleQueries.due(task(partition), schedule(partition), nowMillis, DUE_SCAN_LIMIT));
    }

    /**
     * Documents whose delete command went out and awaits its delete event, over every active partition, counted up
     * to {@link #DUE_SCAN_LIMIT} per partition.
     */
    public long awaitingConfirmation() {
        return overPartitions(
                activePartitions(),
                0L,
                Long::sum,
                partition ->
                        ScheduleQueries.awaitingConfirmation(task(partition), schedule(partition), DUE_SCAN_LIMIT));
    }

    /**
     * Why some active task's schedule cannot be queried now (its stores restoring, or the task moving), one reason
     * per partition, for readiness; empty when every active task's can, and for an instance without tasks.
     */
    public List<String> unqueryable() {
        List<String> reasons = new ArrayList<>();
        for (int partition : activePartitions()) {
            try {
                schedule(partition).approximateNumEntries();
            } catch (InvalidStateStoreException e) {
                reasons.add("the stores of partition " + partition + " cannot be queried yet: " + e.getMessage());
            }
        }
        return reasons;
    }

    /**
     * Upcoming expiries per bucket over every active partition, partition by partition (each names namespaces with
     * ids of its own), each scanned up to its share of {@link #HISTOGRAM_SCAN_LIMIT}.
     */
    Histogram upcoming(long fromMillis, long toMillis, long bucketMillis, Optional<Namespace> namespace) {
        List<Integer> partitions = activePartitions();
        return overPartitions(
                partitions,
                Histogram.EMPTY,
                Histogram::plus,
                partition -> ScheduleQueries.upcoming(
                        task(partition),
                        schedule(partition),
                        fromMillis,
                        toMillis,
                        bucketMillis,
                        namespace,
                        HISTOGRAM_SCAN_LIMIT / partitions.size()));
    }

    /**
     * {@code query}'s answers for {@code partitions}, added up; a partition whose task moved away since it was listed
     * is left out: its entries are now another instance's.
     */
    private static <R> R overPartitions(
            List<Integer> partitions, R none, BinaryOperator<R> plus, IntFunction<R> query) {
        R total = none;
        for (int partition : partitions) {
            try {
                total = plus.apply(total, query.apply(partition));
            } catch (InvalidStateStoreException e) {
                // Moved away: see above.
            }
        }
        return total;
    }

    private ReadOnlyKeyValueStore<Bytes, TaskRecord> task(int partition) {
        return store(ScheduleStores.TASK, Optional.of(partition));
    }

    private ReadOnlyKeyValueStore<Bytes, ScheduleEntry> schedule(int partition) {
        return store(ScheduleStores.SCHEDULE, Optional.of(partition));
    }

    /**
     * One rule's hold over the local tasks.
     *
     * @param held the documents held for approval
     * @param earliest the earliest deadline among them
     * @param latest the latest deadline among them
     */
    public record Hold(String rule, long held, Instant earliest, Instant latest) {

        /** The sentence readiness and the status page give. */
        public String reason() {
            return "rule " + rule + " holds " + held + " documents that came due on arrival past its blast-radius"
                    + " limit (deadlines " + earliest + " to " + latest + "); nothing of them is deleted until"
                    + " `ttl-streams approve --rule " + rule + "` (or --reject)";
        }

        private Hold plus(Hold other) {
            return new Hold(
                    rule,
                    held + other.held,
                    earliest.isBefore(other.earliest) ? earliest : other.earliest,
                    latest.isAfter(other.latest) ? latest : other.latest);
        }
    }

    /**
     * What the blast-radius guard holds for approval in the local tasks, per rule, from the schedules' {@code task}
     * stores; empty when nothing is held, and, unlike the other questions, while the stores cannot be queried.
     */
    public List<Hold> holds() {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return List.of();
        }
        Map<String, Hold> byRule = new TreeMap<>();
        // One entry per task that saw the rule: merged over the tasks.
        try {
            for (KeyValue<String, HeldCount> held :
                    ScheduleQueries.holds(this.<Bytes, TaskRecord>store(ScheduleStores.TASK, Optional.empty()))) {
                byRule.merge(
                        held.key,
                        new Hold(held.key, held.value.getCount(), held.value.getEarliest(), held.value.getLatest()),
                        Hold::plus);
            }
        } catch (InvalidStateStoreException e) {
            return List.of(); // rebalancing: the next question will tell
        }
        return new ArrayList<>(byRule.values());
    }

    /** Readiness reasons: one per rule holding documents. */
    public List<String> holdReasons() {
        return holds().stream().map(Hold::reason).toList();
    }

    /** Documents held over every rule. */
    public long held() {
        return holds().stream().mapToLong(Hold::held).sum();
    }

    private <K, V> ReadOnlyKeyValueStore<K, V> store(String name, Optional<Integer> partition) {
        StoreQueryParameters<ReadOnlyKeyValueStore<K, V>> parameters =
                StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.keyValueStore());
        return streams.store(partition.map(parameters::withPartition).orElse(parameters));
    }
}
