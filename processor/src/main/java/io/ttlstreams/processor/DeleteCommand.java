package io.ttlstreams.processor;

import java.nio.ByteBuffer;
import java.time.Instant;

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

import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.schema.ScheduleEntry;

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
    public static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private DeleteCommand() {
    }

    /** The schedule entry for a document the rules expire. */
    public static ScheduleEntry scheduleEntry(ChangeEvent event, String documentKeyJson, ExpiryDecision decision,
            Long clusterTime) {
        return scheduleEntry(event.namespace(), event.documentKey(), documentKeyJson, decision.condition(),
                decision.rule(), decision.deadline().toEpochMilli(), clusterTime);
    }

    /**
     * The schedule entry of one document.
     *
     * @param namespace "db.coll"
     * @param documentKey the document key, {@code {"_id": ...}} plus any shard-key fields
     * @param documentKeyJson the same as canonical extended JSON (the command's record key)
     * @param condition what the document must still hold to be deleted (see {@link ExpiryDecision#condition()})
     * @param rule the rule that produced the deadline
     * @param deadlineMs the deadline, epoch milliseconds
     * @param clusterTime the scheduling event's clusterTime, or null
     */
    public static ScheduleEntry scheduleEntry(String namespace, BsonDocument documentKey, String documentKeyJson,
            BsonDocument condition, String rule, long deadlineMs, Long clusterTime) {
        BsonDocument filter = documentKey.clone();
        filter.putAll(condition);
        BasicOutputBuffer bson = new BasicOutputBuffer(128);
        CODEC.encode(new BsonBinaryWriter(bson), filter, EncoderContext.builder().build());
        return new ScheduleEntry(namespace, documentKeyJson, rule, Instant.ofEpochMilli(deadlineMs),
                ByteBuffer.wrap(bson.getInternalBuffer(), 0, bson.getPosition()), clusterTime);
    }

    /** The command's record value, canonical extended JSON. */
    public static String value(ScheduleEntry entry) {
        ByteBuffer stored = entry.getDeleteFilter().duplicate();
        byte[] filter = new byte[stored.remaining()];
        stored.get(filter);
        String namespace = entry.getNamespace();
        int dot = namespace.indexOf('.');
        return new BsonDocument("_id", new RawBsonDocument(filter))
                .append("ns", new BsonDocument("db", new BsonString(namespace.substring(0, dot)))
                        .append("coll", new BsonString(namespace.substring(dot + 1))))
                .append("rule", new BsonString(entry.getRule()))
                .append("deadline", new BsonDateTime(entry.getDeadline().toEpochMilli()))
                .toJson(JSON);
    }
}
