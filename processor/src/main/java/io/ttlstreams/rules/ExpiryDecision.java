package io.ttlstreams.rules;

import java.time.Instant;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * What {@link TtlRules#evaluate} concluded about one document.
 *
 * @param expires            whether the document is to be deleted at {@code deadline}
 * @param deadline           when the document expires; {@code null} unless {@code expires}
 * @param rule               the name of the rule that set the deadline; {@code null} unless {@code expires}
 * @param reason             a short sentence for humans explaining the outcome; always set
 * @param condition          the filter the delete command adds to the document key, so that a document that changed
 *                           after the deadline was computed is not deleted on the strength of its old value (for a
 *                           field rule {@code {"<field path>": <value as found>}}); empty unless {@code expires}
 * @param documentTtlIgnored a per-document TTL value was present but invalid, so the rule's default applied;
 *                           reported so that such documents can be counted
 */
public record ExpiryDecision(
        boolean expires,
        Instant deadline,
        String rule,
        String reason,
        BsonDocument condition,
        boolean documentTtlIgnored) {

    /** Rejects inconsistent combinations, which would otherwise surface as a wrong delete much later. */
    public ExpiryDecision {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(condition, "condition");
        if (expires && (deadline == null || rule == null)) {
            throw new IllegalArgumentException("An expiring decision needs a deadline and a rule");
        }
        if (!expires && (deadline != null || rule != null || !condition.isEmpty())) {
            throw new IllegalArgumentException("A decision that does not expire has no deadline, rule or condition");
        }
    }

    /** A decision that the document does not expire, for {@code reason}. */
    public static ExpiryDecision never(String reason) {
        return new ExpiryDecision(false, null, null, reason, new BsonDocument(), false);
    }
}
