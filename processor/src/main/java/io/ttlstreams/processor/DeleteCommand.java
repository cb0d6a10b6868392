package io.ttlstreams.processor;

import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

import io.ttlstreams.schema.ScheduleEntry;

/**
 * The delete command for one due schedule entry, in the form the stock MongoDB sink connector turns
 * into a conditional {@code deleteOne}:
 *
 * <pre>
 * key:   {"_id": ...}                                   (the document key)
 * value: {"_id": {"_id": ..., "expireAt": {"$date": ...}}, (the delete filter: key + condition)
 *         "ns": {"db": "app", "coll": "sessions"},        (read by FieldPathNamespaceMapper)
 *         "rule": "sessions", "deadline": {"$date": ...}}   (for people; the sink ignores them)
 * </pre>
 *
 * With {@code ProvidedInValueStrategy} and {@code DeleteOneBusinessKeyStrategy} the sink uses
 * {@code value._id} verbatim as the filter, so the delete matches only while the document still holds
 * the exact value its deadline was computed from. Canonical extended JSON keeps every BSON type.
 */
public final class DeleteCommand {

    /** Canonical, so that dates, 64-bit integers, binaries and decimals keep their exact BSON type. */
    public static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private DeleteCommand() {
    }

    /** The command's record key: the document key, as canonical extended JSON. */
    public static String key(ScheduleEntry entry) {
        return entry.getDocumentKey();
    }

    /** The command's record value, as canonical extended JSON. */
    public static String value(ScheduleEntry entry) {
        BsonDocument filter = BsonDocument.parse(entry.getDocumentKey());
        filter.putAll(BsonDocument.parse(entry.getCondition()));
        String namespace = entry.getNamespace();
        int dot = namespace.indexOf('.');
        BsonDocument ns = new BsonDocument("db", new BsonString(namespace.substring(0, dot)))
                .append("coll", new BsonString(namespace.substring(dot + 1)));
        return new BsonDocument("_id", filter)
                .append("ns", ns)
                .append("rule", new BsonString(entry.getRule()))
                .append("deadline", new BsonDateTime(entry.getDeadline().toEpochMilli()))
                .toJson(JSON);
    }
}
