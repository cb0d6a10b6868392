package io.ttlstreams.rules;

import java.time.Instant;
import java.util.List;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * What a mark rule ({@link TtlRule#mark()}) makes of a decision: an unmarked document expires as the rule says, with
 * {@code {<field>: {"$exists": false}}} added to the condition, so that its mark command never marks a document
 * twice; a marked one is never marked again, and with a grace period is deleted that long after its mark, the mark
 * pinned in the delete's condition, so that a document un-marked meanwhile survives.
 */
final class Marks {

    private Marks() {}

    /** {@code decision}, an expiring decision of {@code rule}, for {@code document} under the rule's mark action. */
    static ExpiryDecision apply(TtlRule rule, BsonDocument document, ExpiryDecision decision) {
        MarkAction mark = rule.mark();
        List<BsonValue> marks = BsonPaths.resolve(document, mark.field());
        if (marks.isEmpty()) {
            decision.condition().append(mark.field(), new BsonDocument("$exists", BsonBoolean.FALSE));
            return decision;
        }
        BsonValue value = marks.get(0);
        if (mark.deleteAfterSeconds() == null) {
            return ExpiryDecision.never(
                    () -> rule.explain("marked expired (" + mark.field() + " is set): never marked again; removing "
                            + mark.field() + " schedules it again"),
                    decision.documentTtlIgnored());
        }
        if (marks.size() != 1 || !value.isDateTime()) {
            return ExpiryDecision.never(
                    () -> rule.explain(mark.field() + " holds no single date, so no grace period counts from it"),
                    decision.documentTtlIgnored());
        }
        Instant markedAt = Instant.ofEpochMilli(value.asDateTime().getValue());
        long grace = mark.deleteAfterSeconds();
        long deadline = markedAt.plusSeconds(grace).toEpochMilli();
        BsonDocument condition = decision.condition().append(mark.field(), BsonPaths.pinned(value));
        return ExpiryDecision.expiring(
                rule.name(),
                markedAt,
                grace,
                false,
                deadline,
                condition,
                decision.documentTtlIgnored(),
                () -> rule.explain("marked expired at " + markedAt + ": deleted " + grace + " s after its mark, at "
                        + Instant.ofEpochMilli(deadline) + ", unless un-marked"));
    }

    /** Whether an entry with {@code condition}, of mark rule {@code rule}, is a mark rather than a purge. */
    static boolean marks(TtlRule rule, BsonDocument condition) {
        BsonValue pinned = condition.get(rule.mark().field());
        return pinned != null && pinned.isDocument() && pinned.asDocument().containsKey("$exists");
    }
}
