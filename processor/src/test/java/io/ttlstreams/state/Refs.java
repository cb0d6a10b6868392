package io.ttlstreams.state;

import io.ttlstreams.contract.Namespace;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonBoolean;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/** Generators of document references for property tests: several namespaces, every {@code _id} form. */
final class Refs {

    /** Namespaces that share prefixes ("app.s" and "app.sessions", "app" and "apple"), and non-ASCII ones. */
    static final Namespace[] NAMESPACES = {
        Namespace.parse("app.s"),
        Namespace.parse("app.sessions"),
        Namespace.parse("app.s.archive"),
        Namespace.parse("apple.x"),
        Namespace.parse("café.ünïcode"),
    };

    private Refs() {}

    /**
     * {@code _id} values: every type the reference writes without BSON framing (strings with NULs and non-ASCII
     * characters, integers of both widths at their extremes, ObjectIds over all 12 bytes, UUIDs), and types it keeps
     * as BSON: other binaries (UUID subtype 3, subtype 4 of the wrong length), doubles, decimals, booleans, null,
     * embedded documents.
     */
    static Arbitrary<BsonValue> ids() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12).map(BsonString::new),
                Arbitraries.of("", "\u0000", "a\u0000b", "é", "\uD83D\uDE00", "0")
                        .map(BsonString::new),
                Arbitraries.integers().map(BsonInt32::new),
                Arbitraries.longs().map(BsonInt64::new),
                Arbitraries.of(0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE).map(BsonInt32::new),
                Arbitraries.of(0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE).map(BsonInt64::new),
                Arbitraries.integers().between(0, 0xFFFFFF).map(i -> new BsonObjectId(new ObjectId(i, i))),
                bytes(12).map(bytes -> new BsonObjectId(new ObjectId(bytes))),
                bytes(16).map(bytes -> new BsonBinary(BsonBinarySubType.UUID_STANDARD, bytes)),
                bytes(16).map(bytes -> new BsonBinary(BsonBinarySubType.UUID_LEGACY, bytes)),
                bytes(15).map(bytes -> new BsonBinary(BsonBinarySubType.UUID_STANDARD, bytes)),
                bytes(12).map(BsonBinary::new),
                Arbitraries.of(0.0, 1.0, -2.5, Double.NaN).map(BsonDouble::new),
                Arbitraries.of("1", "1.0", "-0").map(text -> new BsonDecimal128(Decimal128.parse(text))),
                Arbitraries.of(BsonBoolean.TRUE, BsonBoolean.FALSE, BsonNull.VALUE),
                Arbitraries.strings()
                        .ofMaxLength(4)
                        .map(tenant -> new BsonDocument("tenant", new BsonString(tenant))
                                .append("n", new BsonInt32(tenant.length()))));
    }

    /**
     * Document keys: an {@code _id} alone (most of them), and the keys kept as BSON whatever their {@code _id}: a
     * sharded collection's shard key fields with the {@code _id}, in either order.
     */
    static Arbitrary<BsonDocument> documentKeys() {
        return Arbitraries.frequencyOf(
                Tuple.of(8, ids().map(id -> new BsonDocument("_id", id))),
                Tuple.of(1, ids().map(id -> new BsonDocument("tenant", new BsonString("t")).append("_id", id))),
                Tuple.of(1, ids().map(id -> new BsonDocument("_id", id).append("region", new BsonInt32(1)))));
    }

    private static Arbitrary<byte[]> bytes(int size) {
        return Arbitraries.bytes().array(byte[].class).ofSize(size);
    }

    static Arbitrary<Namespace> namespaces() {
        return Arbitraries.of(NAMESPACES);
    }

    /** Namespace ids of one byte and of more, up to the largest int (jqwik tries the edges). */
    static Arbitrary<Integer> namespaceIds() {
        return Arbitraries.oneOf(
                Arbitraries.integers().between(0, 300), Arbitraries.integers().greaterOrEqual(0));
    }

    static Arbitrary<Bytes> refs() {
        return Combinators.combine(namespaceIds(), namespaceIds(), documentKeys())
                .as((database, collection, key) ->
                        DocumentRef.of(DocumentRef.collectionPrefix(database, collection), key));
    }
}
