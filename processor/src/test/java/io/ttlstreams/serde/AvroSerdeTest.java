package io.ttlstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.RuleVersion;
import java.time.Instant;
import java.util.Arrays;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class AvroSerdeTest {

    private static final String TOPIC = "ignored";

    // The audit topic's record, and another type to tell them apart.
    private final AvroSerde<ExpiryEvent> expirySerde = AvroSerde.of(ExpiryEvent.class);
    private final AvroSerde<RuleVersion> versionSerde = AvroSerde.of(RuleVersion.class);

    private static ExpiryEvent expiryEvent() {
        return new ExpiryEvent(
                "app.sessions",
                "{\"_id\": \"d1\"}",
                "sessions",
                Instant.parse("2030-01-01T00:00:00.123Z"),
                Instant.parse("2030-01-01T00:00:00.456Z"),
                ExpiryOutcome.CONFIRMED,
                2,
                333L);
    }

    private static <T extends SpecificRecord> T roundTrip(AvroSerde<T> serde, T value) {
        return serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, value));
    }

    @Test
    void shouldRoundTripExpiryEventInstants() {
        ExpiryEvent back = roundTrip(expirySerde, expiryEvent());

        assertThat(back).isEqualTo(expiryEvent());
        assertThat(back.getDeadline()).isEqualTo(Instant.parse("2030-01-01T00:00:00.123Z"));
    }

    @Test
    void shouldUseSingleObjectEncoding() {
        byte[] bytes = expirySerde.serializer().serialize(TOPIC, expiryEvent());

        // Marker C3 01, then the schema's 8-byte CRC-64-AVRO fingerprint, little-endian.
        assertThat(Arrays.copyOf(bytes, 2)).containsExactly(0xC3, 0x01);
        assertThat(bytes.length).isGreaterThan(10);
    }

    @Test
    void shouldMapNullToNull() {
        assertThat(expirySerde.serializer().serialize(TOPIC, null)).isNull();
        assertThat(expirySerde.deserializer().deserialize(TOPIC, null)).isNull();
    }

    @Test
    void shouldRejectBytesWithoutSingleObjectHeader() {
        byte[] garbage = new byte[64];
        new Random(42).nextBytes(garbage);
        garbage[0] = 0x00;

        assertThatThrownBy(() -> expirySerde.deserializer().deserialize(TOPIC, garbage))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ExpiryEvent")
                .hasMessageContaining("64 bytes");
    }

    @Test
    void shouldRejectEmptyBytes() {
        assertThatThrownBy(() -> versionSerde.deserializer().deserialize(TOPIC, new byte[0]))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("RuleVersion");
    }

    @Test
    void shouldRejectTruncatedBytes() {
        byte[] bytes = expirySerde.serializer().serialize(TOPIC, expiryEvent());

        for (int length : new int[] {1, 5, 10, 11, bytes.length / 2, bytes.length - 1}) {
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> expirySerde.deserializer().deserialize(TOPIC, truncated))
                    .as("truncated to %d bytes", length)
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("ExpiryEvent");
        }
    }

    @Test
    void shouldRejectCorruptBody() {
        byte[] bytes = expirySerde.serializer().serialize(TOPIC, expiryEvent());
        // Right after the header comes the namespace's length: make it huge.
        bytes[10] = (byte) 0xFE;
        for (int i = 11; i < 20; i++) {
            bytes[i] = (byte) 0xFF;
        }

        assertThatThrownBy(() -> expirySerde.deserializer().deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ExpiryEvent");
    }

    @Test
    void shouldRejectBytesOfAnotherRecordType() {
        byte[] versionBytes = versionSerde.serializer().serialize(TOPIC, new RuleVersion(1L, 2L));

        assertThatThrownBy(() -> expirySerde.deserializer().deserialize(TOPIC, versionBytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ExpiryEvent");
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
