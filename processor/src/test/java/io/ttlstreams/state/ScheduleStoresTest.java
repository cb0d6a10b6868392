package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.RuleVersion;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.CachingKeyValueStore;
import org.apache.kafka.streams.state.internals.ChangeLoggingKeyValueBytesStore;
import org.apache.kafka.streams.state.internals.InMemoryKeyValueStore;
import org.apache.kafka.streams.state.internals.RocksDBStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScheduleStoresTest {

    @TempDir
    Path stateDir;

    @Test
    void shouldNameTheStores() {
        assertThat(ScheduleStores.schedule().name()).isEqualTo("schedule").isEqualTo(ScheduleStores.SCHEDULE);
        assertThat(ScheduleStores.index().name()).isEqualTo("index").isEqualTo(ScheduleStores.INDEX);
        assertThat(ScheduleStores.task().name()).isEqualTo("task").isEqualTo(ScheduleStores.TASK);
        assertThat(ScheduleStores.namespaceEpochs().name())
                .isEqualTo("namespace-epochs")
                .isEqualTo(ScheduleStores.NAMESPACE_EPOCHS);
        assertThat(ScheduleStores.ruleVersions().name())
                .isEqualTo("rule-versions")
                .isEqualTo(ScheduleStores.RULE_VERSIONS);
    }

    @Test
    void shouldKeepTheStoresThatGrowInRocksDbAndTheBoundedOnesInMemoryAllChangeloggedAndUncached() {
        for (StoreBuilder<?> builder :
                List.of(ScheduleStores.schedule(), ScheduleStores.index(), ScheduleStores.task())) {
            assertThat(builder.loggingEnabled()).as(builder.name()).isTrue();
            // Kafka Streams exposes no caching flag; the built store's layers show it.
            assertThat(layers(builder.build()))
                    .as(builder.name())
                    .contains(ChangeLoggingKeyValueBytesStore.class, RocksDBStore.class)
                    .doesNotContain(CachingKeyValueStore.class);
        }
        for (StoreBuilder<?> builder : List.of(
                ScheduleStores.namespaceEpochs(),
                ScheduleStores.ruleVersions(),
                ScheduleStores.guardState(),
                ScheduleStores.unscheduledNotes())) {
            assertThat(builder.loggingEnabled()).as(builder.name()).isTrue();
            assertThat(builder.logConfig())
                    .as("%s is restored from its changelog's start: short segments, compacted", builder.name())
                    .containsEntry(TopicConfig.SEGMENT_BYTES_CONFIG, "1048576");
            StateStore store = builder.build();
            assertThat(store.persistent()).as(builder.name()).isFalse();
            assertThat(layers(store))
                    .as(builder.name())
                    .contains(ChangeLoggingKeyValueBytesStore.class, InMemoryKeyValueStore.class)
                    .doesNotContain(CachingKeyValueStore.class, RocksDBStore.class);
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
    void shouldStoreValuesWithTheirVersionedSerdes() {
        try (StoreHarness harness = new StoreHarness(
                stateDir,
                ScheduleStores.schedule(),
                ScheduleStores.index(),
                ScheduleStores.task(),
                ScheduleStores.namespaceEpochs(),
                ScheduleStores.ruleVersions())) {
            KeyValueStore<Bytes, ScheduleEntry> schedule = harness.store(ScheduleStores.SCHEDULE);
            KeyValueStore<Bytes, IndexEntry> index = harness.store(ScheduleStores.INDEX);
            KeyValueStore<String, Long> epochs = harness.store(ScheduleStores.NAMESPACE_EPOCHS);
            KeyValueStore<String, RuleVersion> versions = harness.store(ScheduleStores.RULE_VERSIONS);
            Bytes ref =
                    DocumentRef.of(DocumentRef.collectionPrefix(0, 0), new BsonDocument("_id", new BsonString("d1")));
            Instant deadline = Instant.ofEpochMilli(1_900_000_000_000L);
            ScheduleEntry entry = new ScheduleEntry(
                    "sessions", 3L, deadline, 0L, true, ByteBuffer.wrap(new byte[] {5, 0, 0, 0, 0}), 0, null, null);

            new ExpirySchedule(schedule, index, harness.store(ScheduleStores.TASK))
                    .put(ref, null, Timeline.DEADLINES, deadline.toEpochMilli(), entry, 42L);
            epochs.put("app.sessions", 7L);
            versions.put("sessions", new RuleVersion(3L, 0L));

            assertThat(index.get(ref)).isEqualTo(new IndexEntry(0, deadline, 42L, ExpirySchedule.fingerprint(entry)));
            assertThat(schedule.get(ScheduleKey.of(Timeline.DEADLINES, deadline.toEpochMilli(), ref)))
                    .isEqualTo(entry);
            assertThat(epochs.get("app.sessions")).isEqualTo(7L);
            assertThat(versions.get("sessions")).isEqualTo(new RuleVersion(3L, 0L));
        }
    }
}
