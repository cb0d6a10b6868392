package io.ttlstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.StoredFormatContract;
import io.ttlstreams.state.StoredValues.IndexEntries;
import io.ttlstreams.state.StoredValues.ScheduleEntries;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

class VersionedAvroSerdeTest implements StoredFormatContract {

    private final VersionedAvroSerde<ScheduleEntry> schedule = VersionedAvroSerde.of(ScheduleEntry.class, 1);
    private final VersionedAvroSerde<IndexEntry> index = VersionedAvroSerde.of(IndexEntry.class, 1);

    @Override
    public Format format() {
        return new Format(schedule, index, 1, Set.of(1), "reads format version 1 only");
    }

    @Property
    void shouldRoundTripEveryScheduleEntry(@ForAll(supplier = ScheduleEntries.class) ScheduleEntry entry) {
        byte[] bytes = schedule.serializer().serialize(TOPIC, entry);

        assertThat(bytes[0]).as("the format version comes first").isEqualTo((byte) 1);
        assertThat(schedule.deserializer().deserialize(TOPIC, bytes)).isEqualTo(entry);
    }

    @Property
    void shouldRoundTripEveryIndexEntry(@ForAll(supplier = IndexEntries.class) IndexEntry entry) {
        assertThat(index.deserializer().deserialize(TOPIC, index.serializer().serialize(TOPIC, entry)))
                .isEqualTo(entry);
    }
}
