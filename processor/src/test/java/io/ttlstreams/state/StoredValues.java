package io.ttlstreams.state;

import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.function.LongFunction;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ArbitrarySupplier;
import net.jqwik.api.Combinators;
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

/**
 * Generators, encodings and checks shared by the tests of the stores' value formats (every format version must
 * read back what it wrote and refuse what it did not write).
 */
public final class StoredValues {

    private static final String TOPIC = "ignored";

    private StoredValues() {}

    /** For {@code @ForAll(supplier = ...)}: {@link #scheduleEntries()}. */
    public static final class ScheduleEntries implements ArbitrarySupplier<ScheduleEntry> {
        @Override
        public Arbitrary<ScheduleEntry> get() {
            return scheduleEntries();
        }
    }

    /** For {@code @ForAll(supplier = ...)}: {@link #indexEntries()}. */
    public static final class IndexEntries implements ArbitrarySupplier<IndexEntry> {
        @Override
        public Arbitrary<IndexEntry> get() {
            return indexEntries();
        }
    }

    /**
     * Schedule entries over the whole range of every field, with conditions of every kind (see {@link #conditions}),
     * half of them keeping a sharded collection's document key.
     */
    public static Arbitrary<ScheduleEntry> scheduleEntries() {
        Arbitrary<ByteBuffer> documentKeys = Combinators.combine(
                        Arbitraries.strings().ofMaxLength(20),
                        Arbitraries.strings().ofMaxLength(20))
                .as((tenant, id) ->
                        bson(new BsonDocument("tenant", new BsonString(tenant)).append("_id", new BsonString(id))))
                .injectNull(0.5);
        return Combinators.combine(entriesWithoutKey(), documentKeys)
                .as((entry, key) ->
                        ScheduleEntry.newBuilder(entry).setDocumentKey(key).build());
    }

    private static Arbitrary<ScheduleEntry> entriesWithoutKey() {
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
                        emitted == null ? null : Instant.ofEpochMilli(emitted),
                        null));
    }

    /** Conditions of a base: the base pinned under a field name (the compact case), near misses, and others. */
    private static Arbitrary<LongFunction<ByteBuffer>> conditions() {
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

    /** Index entries on every timeline, with and without a cluster time. */
    public static Arbitrary<IndexEntry> indexEntries() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 3),
                        Arbitraries.longs().between(-100_000_000_000_000L, 100_000_000_000_000L),
                        Arbitraries.longs().injectNull(0.3),
                        Arbitraries.longs())
                .as((timeline, dueAt, clusterTime, fingerprint) ->
                        new IndexEntry(timeline, Instant.ofEpochMilli(dueAt), clusterTime, fingerprint));
    }

    /** {@code {"$eq": value}}. */
    public static BsonDocument eq(BsonValue value) {
        return new BsonDocument("$eq", value);
    }

    /** The bytes the BSON codec writes for {@code document}. */
    public static ByteBuffer bson(BsonDocument document) {
        BasicOutputBuffer out = new BasicOutputBuffer(64);
        new BsonDocumentCodec()
                .encode(
                        new BsonBinaryWriter(out),
                        document,
                        EncoderContext.builder().build());
        return ByteBuffer.wrap(out.toByteArray());
    }
}
