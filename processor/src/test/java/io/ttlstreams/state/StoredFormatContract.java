package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.StoredValues.IndexEntries;
import io.ttlstreams.state.StoredValues.ScheduleEntries;
import java.util.Arrays;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/**
 * The framing every format of the stores' values keeps, as tests a format's test class inherits: a leading format
 * version that is checked, exactly one value in the bytes, and null for null.
 */
public interface StoredFormatContract {

    String TOPIC = "ignored";

    /**
     * The format under test: its serdes, the version they write, the versions they read and how a refusal says what
     * is read (e.g. "reads format version 1 only").
     */
    record Format(
            Serde<ScheduleEntry> schedule,
            Serde<IndexEntry> index,
            int writtenVersion,
            Set<Integer> readVersions,
            String readsWhat) {}

    Format format();

    @Property
    default void shouldRefuseAnUnknownFormatVersionRatherThanMisreadIt(
            @ForAll(supplier = IndexEntries.class) IndexEntry entry,
            @ForAll @IntRange(min = 0, max = 255) int version) {
        Serde<IndexEntry> index = format().index();
        byte[] bytes = index.serializer().serialize(TOPIC, entry);
        bytes[0] = (byte) version;

        if (version == format().writtenVersion()) {
            assertThat(index.deserializer().deserialize(TOPIC, bytes)).isEqualTo(entry);
        } else if (!format().readVersions().contains(version)) {
            assertThatThrownBy(() -> index.deserializer().deserialize(TOPIC, bytes))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("IndexEntry")
                    .hasMessageContaining("format version " + version)
                    .hasMessageContaining(format().readsWhat());
        }
    }

    @Property
    default void shouldRefuseTruncatedOrExtendedBytes(@ForAll(supplier = ScheduleEntries.class) ScheduleEntry entry) {
        Serde<ScheduleEntry> schedule = format().schedule();
        byte[] bytes = schedule.serializer().serialize(TOPIC, entry);

        assertThatThrownBy(() -> schedule.deserializer().deserialize(TOPIC, Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> schedule.deserializer().deserialize(TOPIC, Arrays.copyOf(bytes, bytes.length + 1)))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("more than one");
    }

    @Test
    default void shouldMapNullToNullAndRefuseEmptyBytes() {
        for (Serde<?> serde : Set.of(format().schedule(), format().index())) {
            assertThat(serde.serializer().serialize(TOPIC, null)).isNull();
            assertThat(serde.deserializer().deserialize(TOPIC, null)).isNull();
            assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, new byte[0]))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("no bytes");
        }
    }
}
