package io.ttlstreams.state;

import io.ttlstreams.contract.Namespace;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

/** Generators of document references for property tests: several namespaces, every common {@code _id} type. */
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

    static Arbitrary<BsonValue> ids() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12).map(BsonString::new),
                Arbitraries.integers().map(BsonInt32::new),
                Arbitraries.longs().map(BsonInt64::new),
                Arbitraries.integers().between(0, 0xFFFFFF).map(i -> new BsonObjectId(new ObjectId(i, i))),
                Arbitraries.strings()
                        .ofMaxLength(4)
                        .map(tenant -> new BsonDocument("tenant", new BsonString(tenant))
                                .append("n", new BsonInt32(tenant.length()))));
    }

    static Arbitrary<BsonDocument> documentKeys() {
        return ids().map(id -> new BsonDocument("_id", id));
    }

    static Arbitrary<Namespace> namespaces() {
        return Arbitraries.of(NAMESPACES);
    }

    static Arbitrary<Bytes> refs() {
        return Combinators.combine(namespaces(), documentKeys()).as(DocumentRef::of);
    }
}
