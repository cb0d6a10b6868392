package io.ttlstreams.bench;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * Change events in the shape the MongoDB source connector publishes them (canonical extended JSON), built like
 * the processor tests' {@code ChangeEvents}: each event gets the next clusterTime, as the oplog would give it.
 */
final class ChangeEventFactory {

    private final String db;
    private final String coll;
    private int increment;

    ChangeEventFactory(String namespace) {
        Namespace parsed = Namespace.parse(namespace);
        this.db = parsed.database();
        this.coll = parsed.collection();
    }

    /**
     * An insert or update of document {@code id} expiring at {@code expireAt}, seen at {@code wallTime}. The
     * document's {@code version} field lets an update change the document without touching what the rule reads.
     */
    String write(String operation, long id, int version, Instant wallTime, Instant expireAt) {
        return envelope(operation, id, wallTime)
                .append("fullDocument", document(id, version, expireAt))
                .toJson(CanonicalJson.SETTINGS);
    }

    /**
     * The delete of document {@code id} seen at {@code wallTime}; with {@code preImage}, its
     * {@code fullDocumentBeforeChange} (a collection with {@code changeStreamPreAndPostImages}, a connector asked for
     * it), else none, as the connector renders it when no rule asks for the pre-image.
     */
    String delete(long id, Instant wallTime, BsonDocument preImage) {
        BsonDocument event = envelope("delete", id, wallTime);
        if (preImage != null) {
            event.append("fullDocumentBeforeChange", preImage);
        }
        return event.toJson(CanonicalJson.SETTINGS);
    }

    /** Document {@code id} as {@link #write} gives it in {@code fullDocument}. */
    static BsonDocument document(long id, int version, Instant expireAt) {
        return new BsonDocument("_id", BenchSupport.id(id))
                .append("user", new BsonString("user-" + id))
                .append("version", new BsonInt32(version))
                .append(BenchSupport.FIELD, new BsonDateTime(expireAt.toEpochMilli()));
    }

    private BsonDocument envelope(String operation, long id, Instant wallTime) {
        BsonTimestamp clusterTime = new BsonTimestamp((int) wallTime.getEpochSecond(), ++increment);
        return new BsonDocument("_id", new BsonDocument("_data", new BsonString("82" + clusterTime.getValue())))
                .append("operationType", new BsonString(operation))
                .append("clusterTime", clusterTime)
                .append("wallTime", new BsonDateTime(wallTime.toEpochMilli()))
                .append("ns", new BsonDocument("db", new BsonString(db)).append("coll", new BsonString(coll)))
                .append("documentKey", new BsonDocument("_id", BenchSupport.id(id)));
    }
}
