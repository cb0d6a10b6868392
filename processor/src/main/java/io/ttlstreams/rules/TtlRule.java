package io.ttlstreams.rules;

import io.ttlstreams.contract.NamespacePattern;
import java.util.Objects;

/**
 * One TTL rule: which namespaces it covers and how it computes a deadline.
 *
 * @param name               the rule's name, recorded in decisions and delete commands
 * @param namespace          the collections the rule applies to
 * @param mode               how the deadline is computed
 * @param field              field mode: the dotted path of the date field; {@code null} for last-modified
 * @param expireAfterSeconds added to the date (field mode) or to the change time (last-modified); 0 to 2147483647,
 *                           the range of MongoDB's {@code expireAfterSeconds}
 * @param fieldFormat        field mode: whether numbers count as epoch instants; {@link FieldFormat#DATE} for
 *                           last-modified
 * @param partialFilter      only documents matching it are scheduled; {@code null} for all documents
 * @param documentTtlField   last-modified: the dotted path of a per-document TTL in seconds that overrides
 *                           {@code expireAfterSeconds}, as Cosmos DB's {@code ttl} does; {@code null} for none
 */
public record TtlRule(
        String name,
        NamespacePattern namespace,
        TtlMode mode,
        String field,
        long expireAfterSeconds,
        FieldFormat fieldFormat,
        PartialFilter partialFilter,
        String documentTtlField) {

    /** Rejects settings that belong to the other mode, so that a misplaced setting is not silently ignored. */
    public TtlRule {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(fieldFormat, "fieldFormat");
        if (name.isBlank()) {
            throw new IllegalArgumentException("A rule needs a name");
        }
        if (expireAfterSeconds < 0 || expireAfterSeconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Rule " + name + ": expireAfterSeconds must be from 0 to "
                    + Integer.MAX_VALUE + ", not " + expireAfterSeconds);
        }
        if (mode == TtlMode.FIELD) {
            if (field == null) {
                throw new IllegalArgumentException("Rule " + name + ": field mode needs a field");
            }
            validateFieldPath(field);
            if (documentTtlField != null) {
                throw new IllegalArgumentException("Rule " + name + ": a document TTL field needs last-modified mode");
            }
        } else {
            if (field != null || fieldFormat != FieldFormat.DATE) {
                throw new IllegalArgumentException(
                        "Rule " + name + ": field and field format apply to field mode only");
            }
            if (documentTtlField != null) {
                validateFieldPath(documentTtlField);
            }
        }
    }

    /**
     * Checks that {@code path} can name a document field: dot-separated, non-empty segments that do not start with
     * {@code $}. Exposed so that configuration can report a bad path against the option that holds it.
     *
     * @return {@code path}
     * @throws IllegalArgumentException otherwise
     */
    public static String validateFieldPath(String path) {
        return BsonPaths.validate(path);
    }

    /** {@code detail} attributed to this rule, the shape every reason takes. */
    String explain(String detail) {
        return detail + " (rule " + name + ")";
    }
}
