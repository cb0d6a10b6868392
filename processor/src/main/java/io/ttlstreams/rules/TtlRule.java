package io.ttlstreams.rules;

import io.ttlstreams.contract.NamespacePattern;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import org.apache.commons.codec.digest.DigestUtils;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * One TTL rule: which namespaces it covers and how it computes a deadline.
 *
 * @param name               the rule's name, recorded in decisions and delete commands
 * @param namespace          the collections the rule applies to
 * @param mode               how the deadline is computed
 * @param field              field mode: the dotted path of the date field; {@code null} for last-modified
 * @param expireAfterSeconds added to the date (field mode) or to the change time (last-modified); 0 to 2147483647,
 *                           the range of MongoDB's {@code expireAfterSeconds}; or, last-modified with a document TTL
 *                           field, {@link #NO_DEFAULT}
 * @param fieldFormat        field mode: whether numbers count as epoch instants; {@link FieldFormat#DATE} for
 *                           last-modified
 * @param partialFilter      only documents matching it are scheduled; {@code null} for all documents
 * @param documentTtlField   last-modified: the dotted path of a per-document TTL in seconds that overrides
 *                           {@code expireAfterSeconds}, as Cosmos DB's {@code ttl} does; {@code null} for none
 * @param modifiedField      last-modified: the dotted path of a field that changes on every write (an
 *                           {@code updatedAt} date or a version number), pinned in the delete filter so that a
 *                           modification the processor has not seen yet makes the delete miss; {@code null} for none
 * @param mark               soft expiry: mark the document at the deadline instead of deleting it; {@code null} to
 *                           delete
 */
public record TtlRule(
        String name,
        NamespacePattern namespace,
        TtlMode mode,
        String field,
        long expireAfterSeconds,
        FieldFormat fieldFormat,
        PartialFilter partialFilter,
        String documentTtlField,
        String modifiedField,
        MarkAction mark) {

    /**
     * {@code expireAfterSeconds} of Cosmos DB's container default {@code -1}: TTL on, but no default, so that only
     * documents carrying their own TTL ({@code documentTtlField}) expire.
     */
    public static final int NO_DEFAULT = -1;

    /** Rejects settings that belong to the other mode, so that a misplaced setting is not silently ignored. */
    public TtlRule {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(fieldFormat, "fieldFormat");
        if (name.isBlank()) {
            throw new IllegalArgumentException("A rule needs a name");
        }
        boolean noDefault =
                expireAfterSeconds == NO_DEFAULT && mode == TtlMode.LAST_MODIFIED && documentTtlField != null;
        if ((expireAfterSeconds < 0 && !noDefault) || expireAfterSeconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Rule " + name + ": expireAfterSeconds must be from 0 to "
                    + Integer.MAX_VALUE + " (or -1 in last-modified mode with a document TTL field), not "
                    + expireAfterSeconds);
        }
        if (mode == TtlMode.FIELD) {
            if (field == null) {
                throw new IllegalArgumentException("Rule " + name + ": field mode needs a field");
            }
            BsonPaths.validate(field);
            if (documentTtlField != null || modifiedField != null) {
                throw new IllegalArgumentException(
                        "Rule " + name + ": a document TTL field and a modified field need last-modified mode");
            }
        } else {
            if (field != null || fieldFormat != FieldFormat.DATE) {
                throw new IllegalArgumentException(
                        "Rule " + name + ": field and field format apply to field mode only");
            }
            if (documentTtlField != null) {
                BsonPaths.validate(documentTtlField);
            }
            if (modifiedField != null) {
                BsonPaths.validate(modifiedField);
            }
        }
    }

    /**
     * A fingerprint of everything in the definition but the name and {@code expireAfterSeconds}: a schedule entry
     * computed under another shape needs its document again, while one computed under another offset only moves, as
     * with MongoDB's {@code collMod expireAfterSeconds}. Stable across builds and JVMs (64 bits of SHA-256 over a
     * canonical text).
     */
    public long shape() {
        String canonical = String.join(
                "\u0000",
                namespace.toString(),
                mode.configValue(),
                // "" for an unset field, which no field name can be ("null" can: a field may be named so).
                Objects.toString(field, ""),
                fieldFormat.configValue(),
                partialFilter == null ? "" : partialFilter.toString(),
                Objects.toString(documentTtlField, ""),
                Objects.toString(modifiedField, ""));
        if (mark != null) {
            // Only for a mark rule, so that every delete rule keeps the shape its stored entries were computed under.
            canonical += "\u0000mark\u0000" + mark.field() + "\u0000" + Objects.toString(mark.deleteAfterSeconds(), "");
        }
        return ByteBuffer.wrap(DigestUtils.sha256(canonical)).getLong();
    }

    /**
     * Whether an entry of this rule with {@code condition} marks its document (rather than deleting it, or deleting
     * it after its grace period).
     */
    public boolean marks(BsonDocument condition) {
        return mark != null && Marks.marks(this, condition);
    }

    /** Whether {@code document} holds this mark rule's mark of {@code deadlineMillis}: its field set to that date. */
    public boolean markedAt(BsonDocument document, long deadlineMillis) {
        if (mark == null || document == null) {
            return false;
        }
        List<BsonValue> marks = BsonPaths.resolve(document, mark.field());
        return marks.size() == 1 && marks.get(0).equals(new BsonDateTime(deadlineMillis));
    }

    /** Whether only documents carrying their own TTL expire ({@link #NO_DEFAULT}). */
    public boolean hasNoDefault() {
        return expireAfterSeconds == NO_DEFAULT;
    }

    /** {@code detail} attributed to this rule, the shape every reason takes. */
    String explain(String detail) {
        return detail + " (rule " + name + ")";
    }
}
