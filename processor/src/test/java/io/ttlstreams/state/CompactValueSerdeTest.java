package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.serde.VersionedAvroSerde;
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
import org.apache.kafka.common.serialization.Serde;
import org.bson.BsonArray;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;
import org.junit.jupiter.api.Test;

class CompactValueSerdeTest {

    private static final String TOPIC = "ignored";

    private final Serde<ScheduleEntry> schedule = ScheduleStores.values(ScheduleEntry.class);
    private final Serde<IndexEntry> index = ScheduleStores.values(IndexEntry.class);
    private final Serde<ScheduleEntry> scheduleV1 = VersionedAvroSerde.of(ScheduleEntry.class, 1);
    private final Serde<IndexEntry> indexV1 = VersionedAvroSerde.of(IndexEntry.class, 1);

    @Provide
    Arbitrary<ScheduleEntry> scheduleEntries() {
        Arbitrary<Long> bases = Arbitraries.longs().between(-100_000_000_000_000L, 100_000_000_000_000L);
        return Combinators.combine(
                        Arbitraries.strings().ofMinLength(1).ofMaxLength(20),
                        Arbitraries.longs(),
                        bases,
                        Arbitraries.longs(),
                        Arbitraries.of(true, false),
                        conditions(),
                        Arbitraries.integers().between(0, Integer.MAX_VALUE),
                        Arbitraries.longs().injectNull(0.5))
                .as((rule, shape, base, offset, fromRule, condition, attempts, emitted) -> new ScheduleEntry(
                        rule,
                        shape,
                        Instant.ofEpochMilli(base),
                        offset,
                        fromRule,
                        condition.apply(base),
                        attempts,
                        emitted == null ? null : Instant.ofEpochMilli(emitted)));
    }

    /** Conditions of a base: the base pinned under a field name (the compact case), near misses, and others. */
    private static Arbitrary<java.util.function.LongFunction<ByteBuffer>> conditions() {
        Arbitrary<String> names =
                Arbitraries.strings().ofMinLength(1).ofMaxLength(30).filter(n -> n.indexOf(0) < 0);
        return Arbitraries.oneOf(
                names.map(name -> base -> bson(new BsonDocument(name, eq(new BsonDateTime(base))))),
                names.map(name -> base -> bson(new BsonDocument(name, eq(new BsonDateTime(base + 1))))),
                names.map(name -> base -> bson(new BsonDocument(name, eq(new BsonInt64(base))))),
                names.map(name ->
                        base -> bson(new BsonDocument(name, new BsonDocument("$ne", new BsonDateTime(base))))),
                names.map(name -> base ->
                        bson(new BsonDocument(name, eq(new BsonDateTime(base))).append("$and", new BsonArray()))),
                names.map(name -> base ->
                        bson(new BsonDocument(name, eq(new BsonDateTime(base)).append("x", new BsonString("y"))))),
                Arbitraries.just(base -> bson(new BsonDocument())),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(bytes -> base -> ByteBuffer.wrap(bytes)));
    }

    @Provide
    Arbitrary<IndexEntry> indexEntries() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 3),
                        Arbitraries.longs().between(-100_000_000_000_000L, 100_000_000_000_000L),
                        Arbitraries.longs().injectNull(0.3),
                        Arbitraries.longs())
                .as((timeline, dueAt, clusterTime, fingerprint) ->
                        new IndexEntry(timeline, Instant.ofEpochMilli(dueAt), clusterTime, fingerprint));
    }

    @Property
    void shouldRoundTripEveryScheduleEntryInFormatVersion2(@ForAll("scheduleEntries") ScheduleEntry entry) {
        byte[] bytes = schedule.serializer().serialize(TOPIC, entry);

        assertThat(bytes[0]).as("the format version comes first").isEqualTo((byte) 2);
        ScheduleEntry read = schedule.deserializer().deserialize(TOPIC, bytes);
        assertThat(read).isEqualTo(entry);
        assertThat(ExpirySchedule.fingerprint(read)).isEqualTo(ExpirySchedule.fingerprint(entry));
    }

    @Property
    void shouldRoundTripEveryIndexEntryInFormatVersion2(@ForAll("indexEntries") IndexEntry entry) {
        byte[] bytes = index.serializer().serialize(TOPIC, entry);

        assertThat(bytes[0]).isEqualTo((byte) 2);
        assertThat(index.deserializer().deserialize(TOPIC, bytes)).isEqualTo(entry);
    }

    @Property
    void shouldReadScheduleEntriesWrittenInFormatVersion1(@ForAll("scheduleEntries") ScheduleEntry entry) {
        byte[] previous = scheduleV1.serializer().serialize(TOPIC, entry);

        assertThat(previous[0]).isEqualTo((byte) 1);
        assertThat(schedule.deserializer().deserialize(TOPIC, previous)).isEqualTo(entry);
    }

    @Property
    void shouldReadIndexEntriesWrittenInFormatVersion1(@ForAll("indexEntries") IndexEntry entry) {
        byte[] previous = indexV1.serializer().serialize(TOPIC, entry);

        assertThat(index.deserializer().deserialize(TOPIC, previous)).isEqualTo(entry);
    }

    @Property
    void shouldRefuseAnUnknownFormatVersionRatherThanMisreadIt(
            @ForAll("indexEntries") IndexEntry entry, @ForAll @IntRange(min = 0, max = 255) int version) {
        byte[] bytes = index.serializer().serialize(TOPIC, entry);
        bytes[0] = (byte) version;

        if (version == 2) {
            assertThat(index.deserializer().deserialize(TOPIC, bytes)).isEqualTo(entry);
        } else if (version != 1) {
            assertThatThrownBy(() -> index.deserializer().deserialize(TOPIC, bytes))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("IndexEntry")
                    .hasMessageContaining("format version " + version)
                    .hasMessageContaining("reads format versions 1 and 2 only");
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
        assertThatThrownBy(() -> index.deserializer().deserialize(TOPIC, new byte[0]))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("no bytes");
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
                bson(new BsonDocument("expireAt", eq(new BsonDateTime(base)))),
                0,
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

    private static BsonDocument eq(BsonValue value) {
        return new BsonDocument("$eq", value);
    }

    private static ByteBuffer bson(BsonDocument document) {
        BasicOutputBuffer out = new BasicOutputBuffer(64);
        new BsonDocumentCodec()
                .encode(
                        new BsonBinaryWriter(out),
                        document,
                        EncoderContext.builder().build());
        return ByteBuffer.wrap(out.toByteArray());
    }
}
