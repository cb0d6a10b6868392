package io.ttlstreams.state;

import io.ttlstreams.schema.GuardState;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.RuleVersion;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.UnscheduledNote;
import io.ttlstreams.serde.VersionedAvroSerde;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The processor's state stores. All are persistent (RocksDB) and changelogged (Kafka Streams' default), so the
 * schedule survives restarts and moves with its tasks; keys and values carry a format version (see {@link
 * ScheduleKey}, {@link DocumentRef}, {@link VersionedAvroSerde}).
 *
 * <p>Caching is disabled: the punctuator's range scan must see every write at once, and with reads by key there is
 * little for a cache to save (measured: it made scheduling slower).
 */
public final class ScheduleStores {

    /** Schedule: {@link ScheduleKey} to {@link ScheduleEntry}, scanned per timeline in due order by the punctuator. */
    public static final String SCHEDULE = "schedule";
    /** Index: {@link DocumentRef} to {@link IndexEntry}, where a document's current schedule entry is. */
    public static final String INDEX = "index";
    /** Namespace epochs: namespace (or database) name to the clusterTime of its latest drop. */
    public static final String NAMESPACE_EPOCHS = "namespace-epochs";
    /** Rule versions: rule name to the {@link RuleVersion} the schedule was last reconciled with. */
    public static final String RULE_VERSIONS = "rule-versions";

    /** Guard state: rule name to the {@link GuardState} of the blast-radius guard of that rule in the task. */
    public static final String GUARD_STATE = "guard-state";

    /**
     * Unscheduled notes: slot (0 to {@link UnscheduledNotes#SLOTS}) to the {@link UnscheduledNote} of the latest
     * unscheduled document hashed to it, saying why its latest change event gave it no deadline.
     */
    public static final String UNSCHEDULED_NOTES = "unscheduled-notes";

    /** The format version of the Avro store values this build writes (rule versions, guard state, unscheduled notes). */
    static final int VALUE_FORMAT_VERSION = 1;

    private ScheduleStores() {}

    /** The {@value #SCHEDULE} store. */
    public static StoreBuilder<KeyValueStore<Bytes, ScheduleEntry>> schedule() {
        return persistent(SCHEDULE, Serdes.Bytes(), values(ScheduleEntry.class));
    }

    /** The {@value #INDEX} store. */
    public static StoreBuilder<KeyValueStore<Bytes, IndexEntry>> index() {
        return persistent(INDEX, Serdes.Bytes(), values(IndexEntry.class));
    }

    /** The {@value #NAMESPACE_EPOCHS} store. */
    public static StoreBuilder<KeyValueStore<String, Long>> namespaceEpochs() {
        return persistent(NAMESPACE_EPOCHS, Serdes.String(), Serdes.Long());
    }

    /** The {@value #RULE_VERSIONS} store. */
    public static StoreBuilder<KeyValueStore<String, RuleVersion>> ruleVersions() {
        return persistent(RULE_VERSIONS, Serdes.String(), values(RuleVersion.class));
    }

    /** The {@value #GUARD_STATE} store. */
    public static StoreBuilder<KeyValueStore<String, GuardState>> guardState() {
        return persistent(GUARD_STATE, Serdes.String(), values(GuardState.class));
    }

    /** The {@value #UNSCHEDULED_NOTES} store. */
    public static StoreBuilder<KeyValueStore<Integer, UnscheduledNote>> unscheduledNotes() {
        return persistent(UNSCHEDULED_NOTES, Serdes.Integer(), values(UnscheduledNote.class));
    }

    /**
     * A persistent store, changelogged, with caching off: the punctuator's range scan must see every write at once
     * (docs/topology.md).
     */
    private static <K, V> StoreBuilder<KeyValueStore<K, V>> persistent(String name, Serde<K> keys, Serde<V> values) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), keys, values)
                .withCachingDisabled();
    }

    /**
     * The serde of a store value type: a format-version byte, then the value. {@link ScheduleEntry} and {@link
     * IndexEntry}, written on every change event, have their own compact format (version 2, {@link
     * CompactValueSerde}); the others are Avro binary.
     */
    @SuppressWarnings("unchecked")
    public static <T extends org.apache.avro.specific.SpecificRecord> Serde<T> values(Class<T> type) {
        if (type == ScheduleEntry.class) {
            return (Serde<T>) new ScheduleEntrySerde();
        }
        if (type == IndexEntry.class) {
            return (Serde<T>) new IndexEntrySerde();
        }
        return VersionedAvroSerde.of(type, VALUE_FORMAT_VERSION);
    }
}
