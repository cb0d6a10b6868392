package io.ttlstreams.topology;

import io.ttlstreams.connect.ChangeStreamPipeline;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Builds change events in the shape the MongoDB source connector publishes them with the ExtendedJson
 * formatter (canonical extended JSON), for one namespace. Each event gets the next clusterTime, as the
 * oplog would give it.
 */
final class ChangeEvents {

    private static final JsonWriterSettings CANONICAL =
            JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private final String db;
    private final String coll;
    private final AtomicInteger increment = new AtomicInteger();
    private Instant wallTime;

    ChangeEvents(String namespace, Instant wallTime) {
        int dot = namespace.indexOf('.');
        this.db = namespace.substring(0, dot);
        this.coll = namespace.substring(dot + 1);
        this.wallTime = wallTime;
    }

    /** Sets the wallTime of the following events. */
    ChangeEvents at(Instant time) {
        this.wallTime = time;
        return this;
    }

    /** The record key the connector writes: the document key. */
    static String key(BsonValue id) {
        return new BsonDocument("_id", id).toJson(CANONICAL);
    }

    String insert(BsonValue id, BsonDocument document) {
        return withDocument("insert", id, document);
    }

    /** An insert into a sharded collection: its document key holds the shard key fields before {@code _id}. */
    String insert(BsonDocument documentKey, BsonDocument fullDocument) {
        return envelope("insert")
                .append("documentKey", documentKey)
                .append("fullDocument", fullDocument)
                .toJson(CANONICAL);
    }

    /** An update in a sharded collection: its document key holds the shard key fields before {@code _id}. */
    String updateKeyed(BsonDocument documentKey, BsonDocument fullDocument) {
        return envelope("update")
                .append("documentKey", documentKey)
                .append("fullDocument", fullDocument)
                .toJson(CANONICAL);
    }

    /**
     * A change of a document's shard key value that moves it to another shard, as MongoDB reports it (the stand-in's
     * {@code ShardKeys}): a delete under the old document key and an insert of the new document under the new one,
     * both at one clusterTime, as a transaction's events are.
     */
    List<String> moveKeyed(BsonDocument oldKey, BsonDocument newKey, BsonDocument fullDocument) {
        BsonDocument delete = envelope("delete").append("documentKey", oldKey);
        BsonDocument insert = envelope("insert");
        insert.put("clusterTime", delete.get("clusterTime"));
        insert.append("documentKey", newKey).append("fullDocument", fullDocument);
        return List.of(delete.toJson(CANONICAL), insert.toJson(CANONICAL));
    }

    /**
     * An update in a sharded collection whose lookup found nothing under its document key, which holds the shard key as
     * it was before the update (the stand-in's {@code ShardKeys} on a change of a refined shard key field): no
     * fullDocument although the document is there.
     */
    String updateLookupMissed(BsonDocument oldKey) {
        return envelope("update")
                .append("documentKey", oldKey)
                .append("fullDocument", org.bson.BsonNull.VALUE)
                .toJson(CANONICAL);
    }

    String update(BsonValue id, BsonDocument documentAfter) {
        return withDocument("update", id, documentAfter);
    }

    String replace(BsonValue id, BsonDocument documentAfter) {
        return withDocument("replace", id, documentAfter);
    }

    /** An update whose document was deleted before the connector's updateLookup: fullDocument null. */
    String updateOfVanishedDocument(BsonValue id) {
        return envelope("update")
                .append("documentKey", new BsonDocument("_id", id))
                .append("fullDocument", org.bson.BsonNull.VALUE)
                .toJson(CANONICAL);
    }

    /**
     * A resync event as {@code ttl-streams resync} publishes it: the document as read, with the read's cluster time
     * and no wallTime.
     */
    String resync(BsonValue id, BsonDocument document, BsonTimestamp readAt) {
        BsonDocument full = new BsonDocument("_id", id);
        document.forEach(full::append);
        return new BsonDocument("operationType", new BsonString("resync"))
                .append("clusterTime", readAt)
                .append("ns", new BsonDocument("db", new BsonString(db)).append("coll", new BsonString(coll)))
                .append("documentKey", new BsonDocument("_id", id))
                .append("fullDocument", full)
                .toJson(CANONICAL);
    }

    String delete(BsonValue id) {
        return envelope("delete")
                .append("documentKey", new BsonDocument("_id", id))
                .toJson(CANONICAL);
    }

    /** A delete whose event carries the document as it was just before ({@code fullDocumentBeforeChange}). */
    String deleteWithPreImage(BsonValue id, BsonDocument documentBefore) {
        BsonDocument before = new BsonDocument("_id", id);
        documentBefore.forEach(before::append);
        return envelope("delete")
                .append("documentKey", new BsonDocument("_id", id))
                .append("fullDocumentBeforeChange", before)
                .toJson(CANONICAL);
    }

    /**
     * A delete whose pre-image was too large for the source pipeline to carry: in its place the marker, the
     * pre-image's {@code _id} and {@code ruleFields}.
     */
    String deleteWithPreImageMarker(BsonValue id, BsonDocument ruleFields) {
        BsonDocument marker = new BsonDocument("_id", id);
        ruleFields.forEach(marker::append);
        return envelope("delete")
                .append("documentKey", new BsonDocument("_id", id))
                .append(ChangeStreamPipeline.PRE_IMAGE_TOO_LARGE, marker)
                .toJson(CANONICAL);
    }

    String drop() {
        return envelope("drop").toJson(CANONICAL);
    }

    String dropDatabase() {
        BsonDocument event = envelope("dropDatabase");
        event.put("ns", new BsonDocument("db", new BsonString(db)));
        return event.toJson(CANONICAL);
    }

    /** The clusterTime the next event will carry. */
    BsonTimestamp nextClusterTime() {
        return new BsonTimestamp((int) wallTime.getEpochSecond(), increment.get() + 1);
    }

    private String withDocument(String operation, BsonValue id, BsonDocument document) {
        BsonDocument full = new BsonDocument("_id", id);
        document.forEach(full::append);
        return envelope(operation)
                .append("documentKey", new BsonDocument("_id", id))
                .append("fullDocument", full)
                .toJson(CANONICAL);
    }

    private BsonDocument envelope(String operation) {
        BsonTimestamp clusterTime = new BsonTimestamp((int) wallTime.getEpochSecond(), increment.incrementAndGet());
        return new BsonDocument("_id", new BsonDocument("_data", new BsonString("82" + clusterTime.getValue())))
                .append("operationType", new BsonString(operation))
                .append("clusterTime", clusterTime)
                .append("wallTime", new BsonDateTime(wallTime.toEpochMilli()))
                .append("ns", new BsonDocument("db", new BsonString(db)).append("coll", new BsonString(coll)));
    }
}
