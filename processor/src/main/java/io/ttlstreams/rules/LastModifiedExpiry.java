package io.ttlstreams.rules;

import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** Last-modified mode: Cosmos DB's TTL, counted from the change event's time, with its per-document override. */
final class LastModifiedExpiry {

    /** Cosmos DB's per-document value for "never expire, whatever the collection default". */
    private static final int NEVER = -1;

    private LastModifiedExpiry() {}

    static ExpiryDecision evaluate(TtlRule rule, BsonDocument document, Instant eventTime) {
        long seconds = rule.expireAfterSeconds();
        String source = "";
        boolean ignored = false;
        BsonDocument condition = new BsonDocument();
        String ttlField = rule.documentTtlField();
        if (ttlField != null) {
            List<BsonValue> values = BsonPaths.resolve(document, ttlField);
            // The condition pins the TTL as found, so that a document whose TTL changed after this decision is
            // left to the decision its new value produces.
            if (values.isEmpty()) {
                condition.append(ttlField, new BsonDocument("$exists", BsonBoolean.FALSE));
            } else {
                // Several values (the path crossed an array) cannot be one TTL; only presence can be pinned.
                BsonValue value = values.get(0);
                condition.append(
                        ttlField,
                        values.size() == 1 ? BsonPaths.pinned(value) : new BsonDocument("$exists", BsonBoolean.TRUE));
                OptionalInt ttl = values.size() == 1 ? documentTtl(value) : OptionalInt.empty();
                if (ttl.isPresent() && ttl.getAsInt() == NEVER) {
                    return ExpiryDecision.never(rule.explain("field " + ttlField + " is -1, which never expires"));
                }
                if (ttl.isPresent()) {
                    seconds = ttl.getAsInt();
                    source = " from field " + ttlField;
                } else {
                    ignored = true;
                    String found = values.size() == 1 ? BsonTypes.describe(value) : "several values";
                    source = " by default; field " + ttlField + " holds " + found
                            + ", ignored because a TTL must be a positive int or -1";
                }
            }
        }
        String computation = "last modified " + Deadlines.format(eventTime) + " + " + seconds + " s" + source;
        OptionalLong deadline = Deadlines.plusSeconds(eventTime, seconds);
        if (deadline.isEmpty()) {
            return new ExpiryDecision(
                    false,
                    null,
                    null,
                    rule.explain(computation + Deadlines.BEYOND_LAST_DATE),
                    new BsonDocument(),
                    ignored);
        }
        return new ExpiryDecision(
                true,
                Instant.ofEpochMilli(deadline.getAsLong()),
                rule.name(),
                rule.explain(computation),
                condition,
                ignored);
    }

    /**
     * The per-document TTL, when {@code value} is one Cosmos DB accepts: a positive 32-bit integer or -1, also when
     * stored as a long or as a double without a fraction (JSON clients often write numbers as doubles).
     */
    private static OptionalInt documentTtl(BsonValue value) {
        long whole;
        if (value.isInt32() || value.isInt64()) {
            whole = value.asNumber().longValue();
        } else if (value.isDouble()
                && value.asDouble().getValue() == Math.rint(value.asDouble().getValue())) {
            // An infinity passes the fraction test but fails the range test below, as it should.
            whole = (long) value.asDouble().getValue();
        } else {
            return OptionalInt.empty();
        }
        boolean valid = whole <= Integer.MAX_VALUE && (whole > 0 || whole == NEVER);
        return valid ? OptionalInt.of((int) whole) : OptionalInt.empty();
    }
}
