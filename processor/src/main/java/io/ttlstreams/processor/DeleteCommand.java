package io.ttlstreams.processor;

import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.schema.ScheduleEntry;
import java.nio.ByteBuffer;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * The delete command for one document, in the form the stock MongoDB sink connector turns into a
 * conditional {@code deleteOne}:
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
 *
 * <p>The filter is stored as BSON in the {@link ScheduleEntry} when a document is scheduled, which
 * happens on every change, and turned into JSON only when the command is emitted, at most once per
 * document: writing JSON for every change was the largest cost of scheduling.
 */
public final class DeleteCommand {

    /** Canonical ("extended"), so that dates, 64-bit integers, binaries and decimals keep their BSON type. */
    public static final JsonWriterSettings JSON =
            JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private DeleteCommand() {}

    /** The schedule entry for a document the rules expire. */
    public static ScheduleEntry scheduleEntry(BsonDocument documentKey, ExpiryDecision decision) {
        return scheduleEntry(documentKey, decision.condition(), decision.rule());
    }

    /**
     * The schedule entry of one document.
     *
     * @param documentKey the document key, {@code {"_id": ...}} plus any shard-key fields
     * @param condition what the document must still hold to be deleted (see {@link ExpiryDecision#condition()})
     * @param rule the rule that produced the deadline
     */
    public static ScheduleEntry scheduleEntry(BsonDocument documentKey, BsonDocument condition, String rule) {
        BsonDocument filter = documentKey.clone();
        filter.putAll(condition);
        BasicOutputBuffer bson = new BasicOutputBuffer(128);
        CODEC.encode(
                new BsonBinaryWriter(bson), filter, EncoderContext.builder().build());
        return new ScheduleEntry(rule, ByteBuffer.wrap(bson.getInternalBuffer(), 0, bson.getPosition()));
    }

    /**
     * The command's record value, canonical extended JSON.
     *
     * @param namespace the document's namespace, "db.coll"
     * @param deadlineMs the deadline, epoch milliseconds
     * @param entry the document's schedule entry
     */
    public static String value(String namespace, long deadlineMs, ScheduleEntry entry) {
        ByteBuffer stored = entry.getDeleteFilter().duplicate();
        byte[] filter = new byte[stored.remaining()];
        stored.get(filter);
        int dot = namespace.indexOf('.');
        return new BsonDocument("_id", new RawBsonDocument(filter))
                .append(
                        "ns",
                        new BsonDocument("db", new BsonString(namespace.substring(0, dot)))
                                .append("coll", new BsonString(namespace.substring(dot + 1))))
                .append("rule", new BsonString(entry.getRule()))
                .append("deadline", new BsonDateTime(deadlineMs))
                .toJson(JSON);
    }
}
