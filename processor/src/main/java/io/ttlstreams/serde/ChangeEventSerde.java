package io.ttlstreams.serde;

import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Serde for {@link ChangeEvent}, as canonical extended JSON, which keeps every BSON type: a round trip gives an
 * equal event. It carries namespace-wide events through an internal topic.
 *
 * <p>The form is {@code {"operationType": "DROP", "namespace": "db.coll", "documentKey": {...} | null,
 * "fullDocument": {...} | null, "eventTime": "<ISO-8601 instant>", "clusterTime": {"$timestamp": ...} | null}}, and a
 * document event's pre-image as {@code "fullDocumentBeforeChange"} when it has one (with {@code "preImageTooLarge":
 * true} when it is the marker of one too large to carry). The
 * event time is an ISO-8601 string rather than a BSON date, because an {@link Instant} may hold nanoseconds. Null
 * serializes to null and back. Thread-safe.
 *
 * <p>Reading is total for any input: whatever the bytes, the result is an event or a {@link SerializationException}
 * (JSON is read within {@link BoundedJson}'s nesting limit, and the namespace is validated), so a record forged onto
 * the control topic can be dead-lettered.
 */
public final class ChangeEventSerde implements Serde<ChangeEvent> {

    /** Present, and true, when the pre-image is the marker of one too large to carry. */
    private static final String PRE_IMAGE_TOO_LARGE = "preImageTooLarge";

    @Override
    public Serializer<ChangeEvent> serializer() {
        return (topic, event) -> event == null ? null : serialize(event);
    }

    @Override
    public Deserializer<ChangeEvent> deserializer() {
        return (topic, bytes) -> bytes == null ? null : fromJson(new String(bytes, StandardCharsets.UTF_8));
    }

    /**
     * Reads an event this serde wrote.
     *
     * @throws SerializationException naming the problem, for anything else: malformed or too deeply nested JSON, a
     *                                missing or mistyped field, an unknown operation type, an invalid namespace or a
     *                                broken invariant of {@link ChangeEvent}
     */
    public static ChangeEvent fromJson(String json) {
        try {
            BsonDocument document = BoundedJson.parse(json);
            BsonValue clusterTime = nullable(document, "clusterTime");
            return new ChangeEvent(
                    OperationType.valueOf(document.getString("operationType").getValue()),
                    Namespace.valueOf(document.getString("namespace").getValue()),
                    documentOrNull(document, "documentKey"),
                    documentOrNull(document, "fullDocument"),
                    Instant.parse(document.getString("eventTime").getValue()),
                    clusterTime == null ? null : clusterTime.asTimestamp(),
                    documentOrNull(document, "fullDocumentBeforeChange"),
                    document.getBoolean(PRE_IMAGE_TOO_LARGE, BsonBoolean.FALSE).getValue());
        } catch (RuntimeException e) {
            // Malformed JSON, a missing or mistyped field, an unknown operation type or a broken invariant.
            throw new SerializationException(
                    "Could not read a ChangeEvent from " + json.length() + " characters (canonical extended JSON): "
                            + e.getMessage(),
                    e);
        }
    }

    private static byte[] serialize(ChangeEvent event) {
        BsonDocument document = new BsonDocument()
                .append("operationType", new BsonString(event.operationType().name()))
                .append("namespace", new BsonString(event.namespace().toString()))
                .append("documentKey", orNull(event.documentKey()))
                .append("fullDocument", orNull(event.fullDocument()))
                .append("eventTime", new BsonString(event.eventTime().toString()))
                .append("clusterTime", orNull(event.clusterTime()));
        if (event.fullDocumentBeforeChange() != null) {
            // Only when there is one, so that every other event keeps the form it always had.
            document.append("fullDocumentBeforeChange", event.fullDocumentBeforeChange());
        }
        if (event.preImageTooLarge()) {
            document.append(PRE_IMAGE_TOO_LARGE, BsonBoolean.TRUE);
        }
        return CanonicalJson.of(document).getBytes(StandardCharsets.UTF_8);
    }

    private static BsonValue orNull(BsonValue value) {
        return value == null ? BsonNull.VALUE : value;
    }

    private static BsonValue nullable(BsonDocument document, String field) {
        BsonValue value = document.get(field);
        return value == null || value.isNull() ? null : value;
    }

    private static BsonDocument documentOrNull(BsonDocument document, String field) {
        BsonValue value = nullable(document, field);
        return value == null ? null : value.asDocument();
    }
}
