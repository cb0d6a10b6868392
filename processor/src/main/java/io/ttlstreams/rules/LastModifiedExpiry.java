package io.ttlstreams.rules;

import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Last-modified mode: Cosmos DB's TTL, counted from the change event's time, with its per-document override and an
 * optional renewal witness. Reasons are built only when asked for.
 */
final class LastModifiedExpiry {

    /** Cosmos DB's per-document value for "never expire, whatever the collection default". */
    private static final int NEVER = -1;

    /** What a decision of a rule without {@code modified.field} says about the race it cannot close. */
    static final String NO_WITNESS_WARNING = "; without modified.field, a change made while the delete command is"
            + " on its way (the pipeline's latency: source connector, processor, sink) is not seen by the delete's"
            + " filter, so a document renewed in that moment can still be deleted";

    private LastModifiedExpiry() {}

    /**
     * @param changeTime when the document last changed (a change event's time), or when it was read (a resync)
     * @param resync whether {@code changeTime} is a resync's read time: then a date in the rule's {@code
     *     modified.field} is the better last-modified time, as it is the document's own
     */
    static ExpiryDecision evaluate(TtlRule rule, BsonDocument document, Instant changeTime, boolean resync) {
        BsonDocument condition = new BsonDocument();
        Instant base = changeTime;
        String witness = rule.modifiedField();
        if (witness != null) {
            BsonValue value = pin(condition, witness, BsonPaths.resolve(document, witness));
            if (resync && value != null && value.isDateTime()) {
                base = Instant.ofEpochMilli(value.asDateTime().getValue());
            }
        }
        Instant counted = base;
        long seconds = rule.expireAfterSeconds();
        Supplier<String> source = () -> "";
        boolean ignored = false;
        boolean fromDocument = false;
        String ttlField = rule.documentTtlField();
        if (ttlField != null) {
            List<BsonValue> values = BsonPaths.resolve(document, ttlField);
            // The condition pins the TTL as found, so that a document whose TTL changed after this decision is
            // left to the decision its new value produces.
            BsonValue value = pin(condition, ttlField, values);
            if (value != null) {
                OptionalInt ttl = documentTtl(value);
                if (ttl.isPresent() && ttl.getAsInt() == NEVER) {
                    return ExpiryDecision.never(
                            () -> rule.explain("field " + ttlField + " is -1, which never expires"), false);
                }
                if (ttl.isPresent()) {
                    seconds = ttl.getAsInt();
                    fromDocument = true;
                    source = () -> " from field " + ttlField;
                } else {
                    ignored = true;
                    source = () -> " by default; field " + ttlField + " holds " + BsonTypes.describe(value)
                            + ", ignored because a TTL must be a positive int or -1";
                }
            } else if (values.size() > 1) {
                ignored = true;
                source = () -> " by default; field " + ttlField
                        + " holds several values, ignored because a TTL must be a positive int or -1";
            }
        }
        if (!fromDocument && rule.hasNoDefault()) {
            // Cosmos DB's -1 default: a document without a TTL of its own does not expire.
            String why = ignored ? " holds no valid TTL" : " is missing";
            return ExpiryDecision.never(
                    () -> rule.explain("no default TTL (expire.after.seconds -1), and field " + ttlField + why),
                    ignored);
        }
        long offset = seconds;
        Supplier<String> from = source;
        Supplier<String> computation = () -> (resync && counted != changeTime ? "modified " : "last modified ")
                + Deadlines.format(counted) + " + " + offset + " s" + from.get();
        String warning = witness == null ? NO_WITNESS_WARNING : "";
        OptionalLong deadline = Deadlines.plusSeconds(counted, offset);
        if (deadline.isEmpty()) {
            return ExpiryDecision.never(() -> rule.explain(computation.get() + Deadlines.BEYOND_LAST_DATE), ignored);
        }
        return ExpiryDecision.expiring(
                rule.name(),
                counted,
                offset,
                !fromDocument,
                deadline.getAsLong(),
                condition,
                ignored,
                () -> rule.explain(computation.get()) + warning);
    }

    /**
     * Adds the condition that pins {@code field} as found: {@code {"$eq": value}} for one value, {@code {"$exists":
     * false}} when it is missing, {@code {"$exists": true}} when the path crossed an array and found several (one
     * value cannot be pinned then, only presence).
     *
     * @return the one value found, or null
     */
    private static BsonValue pin(BsonDocument condition, String field, List<BsonValue> values) {
        if (values.isEmpty()) {
            condition.append(field, new BsonDocument("$exists", BsonBoolean.FALSE));
            return null;
        }
        if (values.size() > 1) {
            condition.append(field, new BsonDocument("$exists", BsonBoolean.TRUE));
            return null;
        }
        condition.append(field, BsonPaths.pinned(values.get(0)));
        return values.get(0);
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
