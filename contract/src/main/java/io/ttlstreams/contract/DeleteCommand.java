package io.ttlstreams.contract;

import java.util.Objects;
import java.util.OptionalLong;
import org.bson.BsonDocument;

/**
 * The delete command for one document, in the form the stock MongoDB sink connector turns into a conditional {@code
 * deleteOne}:
 *
 * <pre>
 * key:   {"_id": ...}                                     (the document key)
 * value: {"_id": {"_id": ..., "expireAt": {"$eq": ...}},   (the delete filter: key + condition)
 *         "ns": {"db": "app", "coll": "sessions"},          (read by FieldPathNamespaceMapper)
 *         "rule": "sessions", "deadline": {"$date": ...},   (for people and the sink guard)
 *         "issuedAt": {"$date": ...}}                       (when the processor sent it: the guard's validity)
 * </pre>
 *
 * A rule whose action is {@code mark} gets a mark command instead: the same value plus {@code "update": {"$set":
 * {"expiredAt": <the deadline>}}}, which the sink guard plugin's write model applies as a conditional {@code
 * updateOne} under the same filter, never an upsert.
 *
 * With {@code ProvidedInValueStrategy} and {@code DeleteOneBusinessKeyStrategy} the sink uses {@code value._id}
 * verbatim as the filter, so the delete matches only while the document still holds the exact values its deadline
 * was computed from. Both key and value are {@link CanonicalJson canonical extended JSON}, which keeps every BSON
 * type.
 *
 * <p>The issue time is part of the value, so a signature over the value covers it: a recorded command cannot be made
 * to look fresh, and one without an issue time cannot gain one. The sink guard
 * refuses a command older than its {@code command.max.age.ms}; every emission, a re-emission for a confirmation
 * included, is a new command with its own issue time.
 *
 * @param documentKey the document key, {@code {"_id": ...}} plus any shard-key fields
 * @param filter the delete filter: the document key's fields plus the condition
 * @param namespace the document's collection
 * @param rule the name of the TTL rule that set the deadline
 * @param deadlineMillis the deadline, epoch milliseconds
 * @param issuedAtMillis when the processor sent the command, epoch milliseconds (the punctuation's time); empty
 *     only for a command read back from a processor that did not write one yet
 * @param markField for a rule whose action is {@code mark}, the field the command sets to the deadline instead of
 *     deleting: the value then carries {@code "update": {"$set": {<markField>: <deadline>}}}, which the sink applies
 *     as a conditional {@code updateOne} (without upsert) under the same filter; null for a delete
 */
public record DeleteCommand(
        BsonDocument documentKey,
        BsonDocument filter,
        Namespace namespace,
        String rule,
        long deadlineMillis,
        OptionalLong issuedAtMillis,
        String markField) {

    /** A delete command (no mark). */
    public DeleteCommand(
            BsonDocument documentKey,
            BsonDocument filter,
            Namespace namespace,
            String rule,
            long deadlineMillis,
            OptionalLong issuedAtMillis) {
        this(documentKey, filter, namespace, rule, deadlineMillis, issuedAtMillis, null);
    }

    /** Field of the value holding the filter. */
    public static final String FILTER_FIELD = "_id";
    /** Field of the value holding the namespace, {@code {"db": ..., "coll": ...}}. */
    public static final String NAMESPACE_FIELD = "ns";
    /** Field of the value holding the rule name. */
    public static final String RULE_FIELD = "rule";
    /** Field of the value holding the deadline, a date. */
    public static final String DEADLINE_FIELD = "deadline";
    /** Field of the value holding the issue time, a date. */
    public static final String ISSUED_AT_FIELD = "issuedAt";
    /** Field of a mark command's value holding its update, {@code {"$set": {<field>: <deadline>}}}. */
    public static final String UPDATE_FIELD = "update";
    /** The only update operator of a mark command. */
    public static final String SET = "$set";

    /** Checks that every part is present and that the namespace is a collection. */
    public DeleteCommand {
        Objects.requireNonNull(documentKey, "documentKey");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(issuedAtMillis, "issuedAtMillis");
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

    /** Whether the command marks the document (sets {@link #markField()} to the deadline) instead of deleting it. */
    public boolean isMark() {
        return markField != null;
    }

    /** The record key: the document key as canonical extended JSON. */
    public String keyJson() {
        return CanonicalJson.of(documentKey);
    }

    /**
     * The record value as canonical extended JSON, written field by field (no value document is built): straight
     * into a buffer when every part takes no escape and the filter only {@link CanonicalJson}'s simple values, else
     * through the {@code JsonWriter}; the same text either way.
     */
    public String valueJson() {
        // Room for a usual command's value (about 300 characters with an ObjectId _id and one pinned date): growing
        // the buffer once was 4 % of an emission (the CommandCostBench profile).
        StringBuilder out = new StringBuilder(512).append("{\"" + FILTER_FIELD + "\": ");
        if (CanonicalJson.appendSimple(out, filter)
                && CanonicalJson.appendString(
                        out.append(", \"" + NAMESPACE_FIELD + "\": {\"db\": "), namespace.database())
                && CanonicalJson.appendString(out.append(", \"coll\": "), namespace.collection())
                && CanonicalJson.appendString(out.append("}, \"" + RULE_FIELD + "\": "), rule)) {
            CanonicalJson.appendDate(out.append(", \"" + DEADLINE_FIELD + "\": "), deadlineMillis);
            if (issuedAtMillis.isPresent()) {
                CanonicalJson.appendDate(out.append(", \"" + ISSUED_AT_FIELD + "\": "), issuedAtMillis.getAsLong());
            }
            if (markField == null) {
                return out.append('}').toString();
            }
            if (CanonicalJson.appendString(out.append(", \"" + UPDATE_FIELD + "\": {\"" + SET + "\": {"), markField)) {
                CanonicalJson.appendDate(out.append(": "), deadlineMillis);
                return out.append("}}}").toString();
            }
        }
        return CanonicalJson.write(writer -> {
            writer.writeStartDocument();
            writer.writeName(FILTER_FIELD);
            CanonicalJson.encode(writer, filter);
            writer.writeStartDocument(NAMESPACE_FIELD);
            writer.writeString("db", namespace.database());
            writer.writeString("coll", namespace.collection());
            writer.writeEndDocument();
            writer.writeString(RULE_FIELD, rule);
            writer.writeDateTime(DEADLINE_FIELD, deadlineMillis);
            issuedAtMillis.ifPresent(issuedAt -> writer.writeDateTime(ISSUED_AT_FIELD, issuedAt));
            if (markField != null) {
                writer.writeStartDocument(UPDATE_FIELD);
                writer.writeStartDocument(SET);
                writer.writeDateTime(markField, deadlineMillis);
                writer.writeEndDocument();
                writer.writeEndDocument();
            }
            writer.writeEndDocument();
        });
    }
}
