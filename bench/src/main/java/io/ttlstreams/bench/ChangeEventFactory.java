package io.ttlstreams.bench;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

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
        BsonValue docId = BenchSupport.id(id);
        BsonDocument full = new BsonDocument("_id", docId)
                .append("user", new BsonString("user-" + id))
                .append("version", new BsonInt32(version))
                .append("expireAt", new BsonDateTime(expireAt.toEpochMilli()));
        BsonTimestamp clusterTime = new BsonTimestamp((int) wallTime.getEpochSecond(), ++increment);
        return new BsonDocument("_id", new BsonDocument("_data", new BsonString("82" + clusterTime.getValue())))
                .append("operationType", new BsonString(operation))
                .append("clusterTime", clusterTime)
                .append("wallTime", new BsonDateTime(wallTime.toEpochMilli()))
                .append("ns", new BsonDocument("db", new BsonString(db)).append("coll", new BsonString(coll)))
                .append("documentKey", new BsonDocument("_id", docId))
                .append("fullDocument", full)
                .toJson(CanonicalJson.SETTINGS);
    }
}
