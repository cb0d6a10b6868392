package io.ttlstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import java.time.Instant;
import java.util.Arrays;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class AvroSerdeTest {

    private static final String TOPIC = "ignored";

    private final AvroSerde<ScheduleEntry> scheduleSerde = AvroSerde.of(ScheduleEntry.class);
    private final AvroSerde<IndexEntry> indexSerde = AvroSerde.of(IndexEntry.class);
    private final AvroSerde<ExpiryEvent> expirySerde = AvroSerde.of(ExpiryEvent.class);

    private static ScheduleEntry scheduleEntry() {
        // The smallest BSON document, {}: five bytes.
        return new ScheduleEntry("sessions", java.nio.ByteBuffer.wrap(new byte[] {5, 0, 0, 0, 0}));
    }

    private static <T extends SpecificRecord> T roundTrip(AvroSerde<T> serde, T value) {
        return serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, value));
    }

    @Test
    void shouldRoundTripScheduleEntry() {
        assertThat(roundTrip(scheduleSerde, scheduleEntry())).isEqualTo(scheduleEntry());
    }

    @Test
    void shouldRoundTripIndexEntry() {
        IndexEntry entry = new IndexEntry(Instant.ofEpochMilli(-86_400_000L), Long.MIN_VALUE);
        IndexEntry withoutClusterTime = new IndexEntry(Instant.ofEpochMilli(Long.MAX_VALUE), null);

        assertThat(roundTrip(indexSerde, entry)).isEqualTo(entry);
        assertThat(roundTrip(indexSerde, withoutClusterTime)).isEqualTo(withoutClusterTime);
    }

    @Test
    void shouldRoundTripExpiryEventInstants() {
        ExpiryEvent event = new ExpiryEvent(
                "app.sessions",
                "{\"_id\": \"d1\"}",
                "sessions",
                Instant.parse("2030-01-01T00:00:00.123Z"),
                Instant.parse("2030-01-01T00:00:00.456Z"));

        ExpiryEvent back = roundTrip(expirySerde, event);

        assertThat(back).isEqualTo(event);
        assertThat(back.getDeadline()).isEqualTo(Instant.parse("2030-01-01T00:00:00.123Z"));
    }

    @Test
    void shouldUseSingleObjectEncoding() {
        byte[] bytes = scheduleSerde.serializer().serialize(TOPIC, scheduleEntry());

        // Marker C3 01, then the schema's 8-byte CRC-64-AVRO fingerprint, little-endian.
        assertThat(Arrays.copyOf(bytes, 2)).containsExactly(0xC3, 0x01);
        assertThat(bytes.length).isGreaterThan(10);
    }

    @Test
    void shouldMapNullToNull() {
        assertThat(scheduleSerde.serializer().serialize(TOPIC, null)).isNull();
        assertThat(scheduleSerde.deserializer().deserialize(TOPIC, null)).isNull();
    }

    @Test
    void shouldRejectBytesWithoutSingleObjectHeader() {
        byte[] garbage = new byte[64];
        new Random(42).nextBytes(garbage);
        garbage[0] = 0x00;

        assertThatThrownBy(() -> scheduleSerde.deserializer().deserialize(TOPIC, garbage))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ScheduleEntry")
                .hasMessageContaining("64 bytes");
    }

    @Test
    void shouldRejectEmptyBytes() {
        assertThatThrownBy(() -> indexSerde.deserializer().deserialize(TOPIC, new byte[0]))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("IndexEntry");
    }

    @Test
    void shouldRejectTruncatedBytes() {
        byte[] bytes = scheduleSerde.serializer().serialize(TOPIC, scheduleEntry());

        for (int length : new int[] {1, 5, 10, 11, bytes.length / 2, bytes.length - 1}) {
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> scheduleSerde.deserializer().deserialize(TOPIC, truncated))
                    .as("truncated to %d bytes", length)
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("ScheduleEntry");
        }
    }

    @Test
    void shouldRejectCorruptBody() {
        byte[] bytes = scheduleSerde.serializer().serialize(TOPIC, scheduleEntry());
        // Right after the header comes the namespace's length: make it huge.
        bytes[10] = (byte) 0xFE;
        for (int i = 11; i < 20; i++) {
            bytes[i] = (byte) 0xFF;
        }

        assertThatThrownBy(() -> scheduleSerde.deserializer().deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ScheduleEntry");
    }

    @Test
    void shouldRejectBytesOfAnotherRecordType() {
        byte[] indexBytes = indexSerde.serializer().serialize(TOPIC, new IndexEntry(Instant.EPOCH, null));

        assertThatThrownBy(() -> scheduleSerde.deserializer().deserialize(TOPIC, indexBytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ScheduleEntry");
    }

    @Test
    void shouldRejectClassWithoutClassSchema() {
        assertThatThrownBy(() -> AvroSerde.of(NotGenerated.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NotGenerated is not a generated Avro record class");
    }

    /** A SpecificRecord that the Avro compiler did not generate: it has no static getClassSchema(). */
    private static final class NotGenerated implements SpecificRecord {
        @Override
        public void put(int i, Object v) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object get(int i) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Schema getSchema() {
            throw new UnsupportedOperationException();
        }
    }
}
