package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.CachingKeyValueStore;
import org.apache.kafka.streams.state.internals.ChangeLoggingKeyValueBytesStore;
import org.apache.kafka.streams.state.internals.RocksDBStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScheduleStoresTest {

    @TempDir
    Path stateDir;

    @Test
    void shouldNameTheStores() {
        assertThat(ScheduleStores.schedule().name()).isEqualTo("schedule").isEqualTo(ScheduleStores.SCHEDULE);
        assertThat(ScheduleStores.index().name()).isEqualTo("index").isEqualTo(ScheduleStores.INDEX);
        assertThat(ScheduleStores.namespaceEpochs().name())
                .isEqualTo("namespace-epochs")
                .isEqualTo(ScheduleStores.NAMESPACE_EPOCHS);
    }

    @Test
    void shouldBuildChangeloggedUncachedRocksDbStores() {
        for (StoreBuilder<?> builder :
                List.of(ScheduleStores.schedule(), ScheduleStores.index(), ScheduleStores.namespaceEpochs())) {
            assertThat(builder.loggingEnabled()).as(builder.name()).isTrue();
            // Kafka Streams exposes no caching flag; the built store's layers show it.
            List<Class<?>> layers = layers(builder.build());
            assertThat(layers)
                    .as(builder.name())
                    .contains(ChangeLoggingKeyValueBytesStore.class, RocksDBStore.class)
                    .doesNotContain(CachingKeyValueStore.class);
        }
    }

    private static List<Class<?>> layers(StateStore store) {
        List<Class<?>> layers = new ArrayList<>();
        StateStore layer = store;
        while (layer instanceof WrappedStateStore<?, ?, ?> wrapped) {
            layers.add(layer.getClass());
            layer = wrapped.wrapped();
        }
        layers.add(layer.getClass());
        return layers;
    }

    @Test
    void shouldStoreValuesWithTheirSerdes() {
        try (StoreHarness harness = new StoreHarness(
                stateDir, ScheduleStores.schedule(), ScheduleStores.index(), ScheduleStores.namespaceEpochs())) {
            KeyValueStore<Bytes, ScheduleEntry> schedule = harness.store(ScheduleStores.SCHEDULE);
            KeyValueStore<Bytes, IndexEntry> index = harness.store(ScheduleStores.INDEX);
            KeyValueStore<String, Long> epochs = harness.store(ScheduleStores.NAMESPACE_EPOCHS);
            String documentKey = "{\"_id\": \"d1\"}";
            Bytes ref = DocumentRef.of(Namespace.parse("app.sessions"), documentKey);
            Instant deadline = Instant.ofEpochMilli(1_900_000_000_000L);
            ScheduleEntry entry = new ScheduleEntry("sessions", java.nio.ByteBuffer.wrap(new byte[] {5, 0, 0, 0, 0}));
            IndexEntry indexEntry = new IndexEntry(deadline, 42L);

            schedule.put(ScheduleKey.of(deadline.toEpochMilli(), ref), entry);
            index.put(ref, indexEntry);
            epochs.put("app.sessions", 7L);

            assertThat(index.get(ref)).isEqualTo(indexEntry);
            assertThat(epochs.get("app.sessions")).isEqualTo(7L);
            try (KeyValueIterator<Bytes, ScheduleEntry> due =
                    schedule.range(ScheduleKey.lowest(), ScheduleKey.dueUpperBound(deadline.toEpochMilli()))) {
                assertThat(due.next().value).isEqualTo(entry);
                assertThat(due.hasNext()).isFalse();
            }
        }
    }
}
