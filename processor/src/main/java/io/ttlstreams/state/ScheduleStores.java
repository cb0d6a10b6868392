package io.ttlstreams.state;

import io.ttlstreams.schema.GuardState;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.RuleVersion;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.schema.UnscheduledNote;
import io.ttlstreams.serde.VersionedAvroSerde;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The processor's state stores, one per kind of record, each with one writer and one versioned serde (the schema
 * files in {@code schemas/} say what the bytes are). All are changelogged (Kafka Streams' default), so the schedule
 * survives restarts and moves with its tasks; keys and values carry a format version (see {@link ScheduleKey},
 * {@link DocumentRef}, {@link CompactValueSerde}, {@link VersionedAvroSerde}).
 *
 * <p>The stores that grow with the documents ({@value #SCHEDULE}, {@value #INDEX}) and the {@value #TASK} store, whose
 * checkpoints get new keys at every punctuation that emits, are persistent (RocksDB): a restart resumes them from
 * their checkpointed offsets. The four whose keys are few and bounded (rules, namespaces, 4,096 slots) live in memory
 * ({@link #SMALL_CHANGELOG}): a task that starts on an instance, a new standby in a takeover among them, opens
 * three RocksDB instances instead of seven, and the stream thread does that before it runs the tasks it took over
 * (bench/README.md, rolling restarts). Such a store is restored from its changelog's start, so that changelog is
 * kept short.
 *
 * <p>Caching is disabled: the punctuator's range scan must see every write at once, and with reads by key there is
 * little for a cache to save (measured: it made scheduling slower).
 */
public final class ScheduleStores {

    /** Schedule: {@link ScheduleKey} to {@link ScheduleEntry}, scanned per timeline in due order by the punctuator. */
    public static final String SCHEDULE = "schedule";
    /** Index: {@link DocumentRef} to {@link IndexEntry}, where a document's current schedule entry is; nothing else. */
    public static final String INDEX = "index";
    /**
     * Task: the schedule's own records of the task, keyed by a kind byte, to a {@link TaskRecord}: the emission
     * checkpoints ({@link EmittedDeadlines}), the namespace dictionary ({@link NamespaceIds}) and what each rule holds
     * for approval ({@link HeldCounts}); written by the task's {@link ExpirySchedule} alone.
     */
    public static final String TASK = "task";
    /** Namespace epochs: namespace (or database) name to the clusterTime of its latest drop. */
    public static final String NAMESPACE_EPOCHS = "namespace-epochs";
    /** Rule versions: rule name to the {@link RuleVersion} the schedule was last reconciled with. */
    public static final String RULE_VERSIONS = "rule-versions";

    /** Guard state: rule name to the {@link GuardState} (the window) of the blast-radius guard of that rule. */
    public static final String GUARD_STATE = "guard-state";

    /**
     * Unscheduled notes: slot (0 to {@link UnscheduledNotes#SLOTS}) to the {@link UnscheduledNote} of the latest
     * unscheduled document hashed to it, saying why its latest change event gave it no deadline.
     */
    public static final String UNSCHEDULED_NOTES = "unscheduled-notes";

    /** The {@value #SCHEDULE} store's values: compact format 2, written on every change event. */
    public static final Serde<ScheduleEntry> SCHEDULE_VALUES = new ScheduleEntrySerde();
    /** The {@value #INDEX} store's values: compact format 2, written on every change event. */
    public static final Serde<IndexEntry> INDEX_VALUES = new IndexEntrySerde();
    /** The {@value #TASK} store's values: format 1, Avro binary. */
    public static final Serde<TaskRecord> TASK_VALUES = VersionedAvroSerde.of(TaskRecord.class, 1);
    /** The {@value #RULE_VERSIONS} store's values: format 1, Avro binary. */
    public static final Serde<RuleVersion> RULE_VERSION_VALUES = VersionedAvroSerde.of(RuleVersion.class, 1);
    /** The {@value #GUARD_STATE} store's values: format 2 (the window only), Avro binary. */
    public static final Serde<GuardState> GUARD_STATE_VALUES = VersionedAvroSerde.of(GuardState.class, 2);
    /** The {@value #UNSCHEDULED_NOTES} store's values: format 1, Avro binary. */
    public static final Serde<UnscheduledNote> UNSCHEDULED_NOTE_VALUES =
            VersionedAvroSerde.of(UnscheduledNote.class, 1);

    /**
     * The changelog settings of the in-memory stores, which a task restores from the changelog's start: segments of
     * 1 MiB (Kafka's default is 1 GiB), so that the log cleaner, which never compacts the open segment, can compact
     * the rest and a restore reads the live keys plus a few MiB of older writes, however often they were written (a
     * guard window is written per document due on arrival, a note per unscheduled change event). Kafka Streams
     * applies them when it creates the changelog; an application's existing changelogs keep theirs
     * (docs/guides.md, "Upgrade and rollback").
     */
    public static final Map<String, String> SMALL_CHANGELOG =
            Map.of(TopicConfig.SEGMENT_BYTES_CONFIG, Integer.toString(1024 * 1024));

    private ScheduleStores() {}

    /** The {@value #SCHEDULE} store. */
    public static StoreBuilder<KeyValueStore<Bytes, ScheduleEntry>> schedule() {
        return persistent(SCHEDULE, Serdes.Bytes(), SCHEDULE_VALUES);
    }

    /** The {@value #INDEX} store. */
    public static StoreBuilder<KeyValueStore<Bytes, IndexEntry>> index() {
        return persistent(INDEX, Serdes.Bytes(), INDEX_VALUES);
    }

    /** The {@value #TASK} store. */
    public static StoreBuilder<KeyValueStore<Bytes, TaskRecord>> task() {
        return persistent(TASK, Serdes.Bytes(), TASK_VALUES);
    }

    /** The {@value #NAMESPACE_EPOCHS} store. */
    public static StoreBuilder<KeyValueStore<String, Long>> namespaceEpochs() {
        return inMemory(NAMESPACE_EPOCHS, Serdes.String(), Serdes.Long());
    }

    /** The {@value #RULE_VERSIONS} store. */
    public static StoreBuilder<KeyValueStore<String, RuleVersion>> ruleVersions() {
        return inMemory(RULE_VERSIONS, Serdes.String(), RULE_VERSION_VALUES);
    }

    /** The {@value #GUARD_STATE} store. */
    public static StoreBuilder<KeyValueStore<String, GuardState>> guardState() {
        return inMemory(GUARD_STATE, Serdes.String(), GUARD_STATE_VALUES);
    }

    /** The {@value #UNSCHEDULED_NOTES} store. */
    public static StoreBuilder<KeyValueStore<Integer, UnscheduledNote>> unscheduledNotes() {
        return inMemory(UNSCHEDULED_NOTES, Serdes.Integer(), UNSCHEDULED_NOTE_VALUES);
    }

    /**
     * A persistent store, changelogged, with caching off: the punctuator's range scan must see every write at once
     * (docs/topology.md).
     */
    private static <K, V> StoreBuilder<KeyValueStore<K, V>> persistent(String name, Serde<K> keys, Serde<V> values) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), keys, values)
                .withCachingDisabled();
    }

    /** An in-memory store, changelogged with {@link #SMALL_CHANGELOG}, with caching off as {@link #persistent}. */
    private static <K, V> StoreBuilder<KeyValueStore<K, V>> inMemory(String name, Serde<K> keys, Serde<V> values) {
        return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), keys, values)
                .withCachingDisabled()
                .withLoggingEnabled(SMALL_CHANGELOG);
    }
}
