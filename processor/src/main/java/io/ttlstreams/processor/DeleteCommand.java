package io.ttlstreams.processor;

import java.time.Instant;

import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
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
 * <p>The command is rendered once, when the document is scheduled, and stored in its
 * {@link ScheduleEntry}: the punctuator, the hot path, then forwards it without parsing anything.
 */
public final class DeleteCommand {

    /** Canonical ("extended"), so that dates, 64-bit integers, binaries and decimals keep their BSON type. */
    public static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private DeleteCommand() {
    }

    /** The schedule entry for a document the rules expire, with its delete command rendered. */
    public static ScheduleEntry scheduleEntry(ChangeEvent event, ExpiryDecision decision, Long clusterTime) {
        return scheduleEntry(event.namespace(), event.documentKey(), decision.condition(), decision.rule(),
                decision.deadline().toEpochMilli(), clusterTime);
    }

    /**
     * The schedule entry of one document.
     *
     * @param namespace "db.coll"
     * @param documentKey the document key, {@code {"_id": ...}} plus any shard-key fields
     * @param condition what the document must still hold to be deleted (see {@link ExpiryDecision#condition()})
     * @param rule the rule that produced the deadline
     * @param deadlineMs the deadline, epoch milliseconds
     * @param clusterTime the scheduling event's clusterTime, or null
     */
    public static ScheduleEntry scheduleEntry(String namespace, BsonDocument documentKey, BsonDocument condition,
            String rule, long deadlineMs, Long clusterTime) {
        BsonDocument filter = documentKey.clone();
        filter.putAll(condition);
        int dot = namespace.indexOf('.');
        BsonDocument ns = new BsonDocument("db", new BsonString(namespace.substring(0, dot)))
                .append("coll", new BsonString(namespace.substring(dot + 1)));
        String value = new BsonDocument("_id", filter)
                .append("ns", ns)
                .append("rule", new BsonString(rule))
                .append("deadline", new BsonDateTime(deadlineMs))
                .toJson(JSON);
        return new ScheduleEntry(namespace, documentKey.toJson(JSON), rule, Instant.ofEpochMilli(deadlineMs), value,
                clusterTime);
    }
}
