package io.ttlstreams.state;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.serde.AvroSerde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The processor's three state stores. All are persistent (RocksDB) and changelogged (Kafka Streams' default), so
 * the schedule survives restarts and moves with its tasks.
 *
 * <p>Caching is disabled: the punctuator's range scan must see every write at once, and with one write per change
 * event and reads by key there is nothing for a cache to save.
 */
public final class ScheduleStores {

    /** Schedule: {@link ScheduleKey} to {@link ScheduleEntry}, scanned in deadline order by the punctuator. */
    public static final String SCHEDULE = "schedule";
    /** Index: {@link DocumentRef} to {@link IndexEntry}, where a document's current schedule entry is. */
    public static final String INDEX = "index";
    /** Namespace epochs: namespace (or database) name to the 64-bit epoch the processor keeps for namespace-wide events. */
    public static final String NAMESPACE_EPOCHS = "namespace-epochs";

    private ScheduleStores() {}

    /** The {@value #SCHEDULE} store. */
    public static StoreBuilder<KeyValueStore<Bytes, ScheduleEntry>> schedule() {
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(SCHEDULE), Serdes.Bytes(), AvroSerde.of(ScheduleEntry.class))
                .withCachingDisabled();
    }

    /** The {@value #INDEX} store. */
    public static StoreBuilder<KeyValueStore<Bytes, IndexEntry>> index() {
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(INDEX), Serdes.Bytes(), AvroSerde.of(IndexEntry.class))
                .withCachingDisabled();
    }

    /** The {@value #NAMESPACE_EPOCHS} store. */
    public static StoreBuilder<KeyValueStore<String, Long>> namespaceEpochs() {
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(NAMESPACE_EPOCHS), Serdes.String(), Serdes.Long())
                .withCachingDisabled();
    }
}
