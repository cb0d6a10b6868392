package io.ttlstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class VersionedAvroSerdeTest {

    private static final String TOPIC = "ignored";

    private final VersionedAvroSerde<ScheduleEntry> schedule = VersionedAvroSerde.of(ScheduleEntry.class, 1);
    private final VersionedAvroSerde<IndexEntry> index = VersionedAvroSerde.of(IndexEntry.class, 1);

    @Provide
    Arbitrary<ScheduleEntry> scheduleEntries() {
        return Combinators.combine(
                        Arbitraries.strings().ofMinLength(1).ofMaxLength(20),
                        Arbitraries.longs(),
                        Arbitraries.longs().between(-100_000_000_000_000L, 100_000_000_000_000L),
                        Arbitraries.longs().between(0, Integer.MAX_VALUE),
                        Arbitraries.of(true, false),
                        Arbitraries.bytes().array(byte[].class).ofMaxSize(64),
                        Arbitraries.integers().between(0, 1000),
                        Arbitraries.longs().between(0, 100_000_000_000_000L).injectNull(0.5))
                .as((rule, shape, base, offset, fromRule, condition, attempts, emitted) -> new ScheduleEntry(
                        rule,
                        shape,
                        Instant.ofEpochMilli(base),
                        offset,
                        fromRule,
                        ByteBuffer.wrap(condition),
                        attempts,
                        emitted == null ? null : Instant.ofEpochMilli(emitted)));
    }

    @Provide
    Arbitrary<IndexEntry> indexEntries() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 2),
                        Arbitraries.longs().between(-100_000_000_000_000L, 100_000_000_000_000L),
                        Arbitraries.longs().injectNull(0.3),
                        Arbitraries.longs())
                .as((timeline, dueAt, clusterTime, fingerprint) ->
                        new IndexEntry(timeline, Instant.ofEpochMilli(dueAt), clusterTime, fingerprint));
    }

    @Property
    void shouldRoundTripEveryScheduleEntry(@ForAll("scheduleEntries") ScheduleEntry entry) {
        byte[] bytes = schedule.serializer().serialize(TOPIC, entry);

        assertThat(bytes[0]).as("the format version comes first").isEqualTo((byte) 1);
        assertThat(schedule.deserializer().deserialize(TOPIC, bytes)).isEqualTo(entry);
    }

    @Property
    void shouldRoundTripEveryIndexEntry(@ForAll("indexEntries") IndexEntry entry) {
        assertThat(index.deserializer().deserialize(TOPIC, index.serializer().serialize(TOPIC, entry)))
                .isEqualTo(entry);
    }

    @Property
    void shouldRefuseAnUnknownFormatVersionRatherThanMisreadIt(
            @ForAll("indexEntries") IndexEntry entry, @ForAll @IntRange(min = 0, max = 255) int version) {
        byte[] bytes = index.serializer().serialize(TOPIC, entry);
        bytes[0] = (byte) version;

        if (version == 1) {
            assertThat(index.deserializer().deserialize(TOPIC, bytes)).isEqualTo(entry);
        } else {
            assertThatThrownBy(() -> index.deserializer().deserialize(TOPIC, bytes))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("IndexEntry")
                    .hasMessageContaining("format version " + version)
                    .hasMessageContaining("reads format version 1 only");
        }
    }

    @Property
    void shouldRefuseTruncatedOrExtendedBytes(@ForAll("scheduleEntries") ScheduleEntry entry) {
        byte[] bytes = schedule.serializer().serialize(TOPIC, entry);

        assertThatThrownBy(() -> schedule.deserializer().deserialize(TOPIC, Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> schedule.deserializer().deserialize(TOPIC, Arrays.copyOf(bytes, bytes.length + 1)))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("more than one");
    }

    @Test
    void shouldMapNullToNullAndRefuseEmptyBytes() {
        assertThat(schedule.serializer().serialize(TOPIC, null)).isNull();
        assertThat(schedule.deserializer().deserialize(TOPIC, null)).isNull();
        assertThatThrownBy(() -> schedule.deserializer().deserialize(TOPIC, new byte[0]))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("no bytes");
    }
}
