package io.ttlstreams.resync;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * One document as a resync read it, as the record published beside the change events:
 *
 * <pre>{@code
 * key:   {"_id": ...}
 * value: {"operationType": "resync", "clusterTime": {"$timestamp": ...}, "ns": {"db": ..., "coll": ...},
 *         "documentKey": {"_id": ...}, "fullDocument": {...}}
 * }</pre>
 *
 * <p>The key is {@code {"_id": ...}} in canonical extended JSON, byte for byte the key the source connectors give every
 * change event of the document (their {@code ExtendedJson} formatter, then the {@code DocumentIdKey} transformation,
 * which leaves out a sharded collection's shard key fields), so the record lands on the partition of the document's
 * change events and is processed in order with them. The value has no {@code wallTime}: the processor counts last-modified
 * rules from the {@code clusterTime}, the batch's {@link ReadStamp}.
 *
 * @param topic the namespace's source topic
 * @param key the record key
 * @param value the record value
 */
public record ResyncEvent(String topic, String key, String value) {

    /** The change stream's name for the operation, which {@code OperationType.RESYNC} parses. */
    public static final String OPERATION_TYPE = "resync";

    public ResyncEvent {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }

    /**
     * The event of {@code document}, read from {@code namespace} under {@code stamp}.
     *
     * @param document the document as read, with {@code _id}
     * @throws IllegalArgumentException if the document has no {@code _id}
     */
    public static ResyncEvent of(String topic, Namespace namespace, BsonDocument document, BsonTimestamp stamp) {
        if (!document.containsKey("_id")) {
            throw new IllegalArgumentException("A document of " + namespace + " read without its _id");
        }
        BsonDocument documentKey = new BsonDocument("_id", document.get("_id"));
        BsonDocument value = new BsonDocument("operationType", new BsonString(OPERATION_TYPE))
                .append("clusterTime", stamp)
                .append(
                        "ns",
                        new BsonDocument("db", new BsonString(namespace.database()))
                                .append("coll", new BsonString(namespace.collection())))
                .append("documentKey", documentKey)
                .append("fullDocument", document);
        return new ResyncEvent(topic, CanonicalJson.of(documentKey), CanonicalJson.of(value));
    }
}
