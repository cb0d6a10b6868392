package io.ttlstreams.app;

import io.ttlstreams.config.ExpiredDocument;
import io.ttlstreams.config.ExpiryEvents;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.rules.Deadlines;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.rules.MarkAction;
import io.ttlstreams.rules.TtlRule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The part of {@code explain}'s answer about expiry events: the deciding rule's action, notice and expired-record
 * settings, and what the document would produce, in order: its notice, its command, its record.
 */
final class ExpiryEventsExplanation {

    private ExpiryEventsExplanation() {}

    /**
     * @param scheduledAt when the document would be scheduled: a notice whose time is not after it is never sent
     */
    static BsonDocument of(ExpiryDecision decision, TtlStreamsConfig config, Instant scheduledAt) {
        ExpiryEvents events = config.expiryEvents();
        BsonDocument answer = new BsonDocument(
                "topic", events.topic().<BsonValue>map(BsonString::new).orElse(BsonNull.VALUE));
        TtlRule rule = decision.rule() == null
                ? null
                : config.rules().rule(decision.rule()).orElse(null);
        if (rule == null || !decision.expires()) {
            return answer.append("produces", new BsonArray());
        }
        MarkAction mark = rule.mark();
        OptionalLong notice = events.noticeBeforeSeconds(rule.name());
        ExpiredDocument document = events.document(rule.name());
        answer.append(
                "rule",
                new BsonDocument("action", new BsonString(mark == null ? "delete" : "mark"))
                        .append("mark.field", mark == null ? BsonNull.VALUE : new BsonString(mark.field()))
                        .append(
                                "delete.after.seconds",
                                mark == null || mark.deleteAfterSeconds() == null
                                        ? BsonNull.VALUE
                                        : new BsonInt64(mark.deleteAfterSeconds()))
                        .append(
                                "notice.before.seconds",
                                notice.isPresent() ? new BsonInt64(notice.getAsLong()) : BsonNull.VALUE)
                        .append("expired.document", new BsonString(document.configValue())));
        Instant deadline = decision.deadline();
        boolean marks = rule.marks(decision.condition());
        boolean purges = mark != null && !marks;
        List<BsonValue> produces = new ArrayList<>();
        if (events.topic().isPresent() && notice.isPresent()) {
            Instant noticeAt = deadline.minusSeconds(notice.getAsLong());
            produces.add(new BsonString(
                    noticeAt.isAfter(scheduledAt)
                            ? "an EXPIRING notice at " + Deadlines.format(noticeAt)
                            : "no EXPIRING notice: the deadline is closer than " + notice.getAsLong() + " s"));
        }
        produces.add(new BsonString(
                marks
                        ? "a mark command at " + Deadlines.format(deadline) + ": sets " + mark.field()
                                + " to the deadline"
                        : "a delete command at " + Deadlines.format(deadline)
                                + (purges ? ", the grace period after its mark" : "")));
        if (events.topic().isPresent()) {
            String type = purges ? "a PURGED record" : "an EXPIRED record";
            produces.add(new BsonString(type + " once " + (marks ? "the mark" : "the delete") + " is confirmed, "
                    + (document == ExpiredDocument.PRE_IMAGE
                            ? "with the document as it was before (its pre-image)"
                            : "without the document")));
        }
        return answer.append("produces", new BsonArray(produces));
    }
}
