package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.serde.VersionedAvroSerde;
import io.ttlstreams.state.StoredValues.IndexEntries;
import io.ttlstreams.state.StoredValues.ScheduleEntries;
import java.time.Instant;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class CompactValueSerdeTest implements StoredFormatContract {

    private final Serde<ScheduleEntry> schedule = ScheduleStores.SCHEDULE_VALUES;
    private final Serde<IndexEntry> index = ScheduleStores.INDEX_VALUES;
    private final Serde<ScheduleEntry> scheduleV1 = VersionedAvroSerde.of(ScheduleEntry.class, 1);
    private final Serde<IndexEntry> indexV1 = VersionedAvroSerde.of(IndexEntry.class, 1);

    @Override
    public Format format() {
        return new Format(schedule, index, 2, Set.of(2), "reads format version 2 only");
    }

    @Property
    void shouldRoundTripEveryScheduleEntryInFormatVersion2(
            @ForAll(supplier = ScheduleEntries.class) ScheduleEntry entry) {
        byte[] bytes = schedule.serializer().serialize(TOPIC, entry);

        assertThat(bytes[0]).as("the format version comes first").isEqualTo((byte) 2);
        ScheduleEntry read = schedule.deserializer().deserialize(TOPIC, bytes);
        assertThat(read).isEqualTo(entry);
        assertThat(ExpirySchedule.fingerprint(read)).isEqualTo(ExpirySchedule.fingerprint(entry));
    }

    @Property
    void shouldRoundTripEveryIndexEntryInFormatVersion2(@ForAll(supplier = IndexEntries.class) IndexEntry entry) {
        byte[] bytes = index.serializer().serialize(TOPIC, entry);

        assertThat(bytes[0]).isEqualTo((byte) 2);
        assertThat(index.deserializer().deserialize(TOPIC, bytes)).isEqualTo(entry);
    }

    @Property
    void shouldRefuseScheduleEntriesOfEarlierBuildsFormatVersion1(
            @ForAll(supplier = ScheduleEntries.class) ScheduleEntry entry) {
        byte[] earlier = scheduleV1.serializer().serialize(TOPIC, entry);

        assertThatThrownBy(() -> schedule.deserializer().deserialize(TOPIC, earlier))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("format version 1")
                .hasMessageContaining("State formats in docs/operating.md");
    }

    @Test
    void shouldStoreAFieldRulesPinnedDateAsItsFieldNameWhenItIsTheBase() {
        long base = 1_900_000_000_000L;
        ScheduleEntry entry = new ScheduleEntry(
                "sessions",
                0x7abcdef012345678L,
                Instant.ofEpochMilli(base),
                0L,
                true,
                StoredValues.bson(new BsonDocument("expireAt", StoredValues.eq(new BsonDateTime(base)))),
                0,
                null,
                null);
        IndexEntry position = new IndexEntry(0, Instant.ofEpochMilli(base), 0x6b0c6a7000000003L, 0x5c3a9f11e2d4b687L);

        // Format 1: 64 and 29 bytes. Version, flags, rule, shape, base, offset, attempts, field name.
        assertThat(schedule.serializer().serialize(TOPIC, entry))
                .hasSize(1 + 1 + 9 + 8 + 6 + 1 + 1 + 9)
                .hasSizeLessThan(scheduleV1.serializer().serialize(TOPIC, entry).length - 25);
        // Version, timeline and flags, due time, clusterTime, fingerprint.
        assertThat(index.serializer().serialize(TOPIC, position))
                .hasSize(1 + 1 + 6 + 8 + 8)
                .hasSizeLessThan(indexV1.serializer().serialize(TOPIC, position).length);
    }
}
