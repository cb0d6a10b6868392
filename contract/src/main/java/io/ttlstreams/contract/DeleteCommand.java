package io.ttlstreams.contract;

import java.util.Objects;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * The delete command for one document, in the form the stock MongoDB sink connector turns into a conditional {@code
 * deleteOne}:
 *
 * <pre>
 * key:   {"_id": ...}                                     (the document key)
 * value: {"_id": {"_id": ..., "expireAt": {"$eq": ...}},   (the delete filter: key + condition)
 *         "ns": {"db": "app", "coll": "sessions"},          (read by FieldPathNamespaceMapper)
 *         "rule": "sessions", "deadline": {"$date": ...}}   (for people and the sink guard)
 * </pre>
 *
 * With {@code ProvidedInValueStrategy} and {@code DeleteOneBusinessKeyStrategy} the sink uses {@code value._id}
 * verbatim as the filter, so the delete matches only while the document still holds the exact values its deadline
 * was computed from. Both key and value are {@link CanonicalJson canonical extended JSON}, which keeps every BSON
 * type.
 *
 * @param documentKey the document key, {@code {"_id": ...}} plus any shard-key fields
 * @param filter the delete filter: the document key's fields plus the condition
 * @param namespace the document's collection
 * @param rule the name of the TTL rule that set the deadline
 * @param deadlineMillis the deadline, epoch milliseconds
 */
public record DeleteCommand(
        BsonDocument documentKey, BsonDocument filter, Namespace namespace, String rule, long deadlineMillis) {

    /** Field of the value holding the filter. */
    public static final String FILTER_FIELD = "_id";
    /** Field of the value holding the namespace, {@code {"db": ..., "coll": ...}}. */
    public static final String NAMESPACE_FIELD = "ns";
    /** Field of the value holding the rule name. */
    public static final String RULE_FIELD = "rule";
    /** Field of the value holding the deadline, a date. */
    public static final String DEADLINE_FIELD = "deadline";

    /** Checks that every part is present and that the namespace is a collection. */
    public DeleteCommand {
        Objects.requireNonNull(documentKey, "documentKey");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(rule, "rule");
        if (namespace.isDatabase()) {
            throw new IllegalArgumentException("A delete command needs a collection, not database " + namespace);
        }
    }

    /**
     * Reads a record of the delete topic back into a command, accepting only what the processor emits: the document
     * key as a literal and, after it, only the conditions the rules produce (see {@code DeleteCommandGrammar} for
     * the grammar). The sink guard applies this to every record before the MongoDB sink connector sees it.
     *
     * @param keyJson the record key, extended JSON; {@code null} is refused
     * @param valueJson the record value, extended JSON; {@code null} is refused
     * @throws InvalidDeleteCommandException with the precise reason when the record is anything else
     */
    public static DeleteCommand parse(String keyJson, String valueJson) {
        return DeleteCommandGrammar.parse(keyJson, valueJson);
    }

    /** The record key: the document key as canonical extended JSON. */
    public String keyJson() {
        return CanonicalJson.of(documentKey);
    }

    /** The record value as canonical extended JSON. */
    public String valueJson() {
        return CanonicalJson.of(new BsonDocument(FILTER_FIELD, filter)
                .append(
                        NAMESPACE_FIELD,
                        new BsonDocument("db", new BsonString(namespace.database()))
                                .append("coll", new BsonString(namespace.collection())))
                .append(RULE_FIELD, new BsonString(rule))
                .append(DEADLINE_FIELD, new BsonDateTime(deadlineMillis)));
    }
}
