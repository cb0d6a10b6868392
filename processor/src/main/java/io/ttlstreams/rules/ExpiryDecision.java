package io.ttlstreams.rules;

import java.time.Instant;
import java.util.Objects;
import java.util.function.Supplier;
import org.bson.BsonDocument;

/**
 * What {@link TtlRules#evaluate} concluded about one document: whether and when it expires, by which rule, what the
 * delete must find the document still holding, and why.
 *
 * <p>The reason is built only when asked for ({@code explain} asks; the processor, which evaluates every change
 * event, does not): building sentences was a measurable part of scheduling.
 *
 * @param expires whether the document is to be deleted at {@code deadline}
 * @param rule the name of the rule that set the deadline; null unless it expires
 * @param base the instant the deadline counts from: the field's date (field mode) or the change time
 *     (last-modified); null unless it expires
 * @param offsetSeconds seconds from {@code base} to the deadline; 0 unless it expires
 * @param offsetFromRule whether {@code offsetSeconds} is the rule's {@code expire.after.seconds}, so that a changed
 *     rule offset moves the deadline; false when the document's own TTL set it
 * @param deadline when the document expires; null unless it expires
 * @param condition the filter the delete command adds to the document key, so that a document that changed after
 *     the deadline was computed is not deleted on the strength of its old value: for a field rule {@code {"<field
 *     path>": {"$eq": <value as found>}}}; empty unless it expires. Each decision has its own copy.
 * @param documentTtlIgnored a per-document TTL value was present but invalid, so a rule's default applied
 * @param implausibleValue an applicable rule found an epoch number no deadline means (before 1971, after year 9999,
 *     or more than five years before the change) and scheduled nothing on it
 * @param explanation builds {@link #reason()}, once
 */
public record ExpiryDecision(
        boolean expires,
        String rule,
        Instant base,
        long offsetSeconds,
        boolean offsetFromRule,
        Instant deadline,
        BsonDocument condition,
        boolean documentTtlIgnored,
        boolean implausibleValue,
        Supplier<String> explanation) {

    public ExpiryDecision {
        Objects.requireNonNull(condition, "condition");
        explanation = explanation instanceof Once ? explanation : new Once(Objects.requireNonNull(explanation));
    }

    /** Builds the reason on the first call and keeps it. */
    private static final class Once implements Supplier<String> {
        private Supplier<String> source;
        private String text;

        Once(Supplier<String> source) {
            this.source = source;
        }

        @Override
        public String get() {
            if (text == null) {
                text = source.get();
                source = null;
            }
            return text;
        }
    }

    /** A decision that the document does not expire, for {@code reason}. */
    public static ExpiryDecision never(String reason) {
        Objects.requireNonNull(reason, "reason");
        return never(() -> reason, false);
    }

    /** A decision that the document does not expire, for a reason built when asked for. */
    static ExpiryDecision never(Supplier<String> reason, boolean documentTtlIgnored) {
        return new ExpiryDecision(
                false, null, null, 0, false, null, new BsonDocument(), documentTtlIgnored, false, reason);
    }

    /** A decision that the document does not expire because its epoch value cannot be meant as a deadline. */
    static ExpiryDecision implausible(Supplier<String> reason) {
        return new ExpiryDecision(false, null, null, 0, false, null, new BsonDocument(), false, true, reason);
    }

    /**
     * A decision that the document expires at {@code base + offsetSeconds}.
     *
     * @param deadlineMillis {@code base + offsetSeconds} in epoch milliseconds, which the caller has computed
     *     without overflow
     */
    static ExpiryDecision expiring(
            String rule,
            Instant base,
            long offsetSeconds,
            boolean offsetFromRule,
            long deadlineMillis,
            BsonDocument condition,
            boolean documentTtlIgnored,
            Supplier<String> reason) {
        return new ExpiryDecision(
                true,
                Objects.requireNonNull(rule, "rule"),
                Objects.requireNonNull(base, "base"),
                offsetSeconds,
                offsetFromRule,
                Instant.ofEpochMilli(deadlineMillis),
                condition,
                documentTtlIgnored,
                false,
                reason);
    }

    /**
     * This decision, reporting an ignored per-document TTL or an implausible epoch value of another applicable rule
     * too.
     */
    ExpiryDecision withFlags(boolean ignored, boolean implausible) {
        return ignored == documentTtlIgnored && implausible == implausibleValue
                ? this
                : new ExpiryDecision(
                        expires,
                        rule,
                        base,
                        offsetSeconds,
                        offsetFromRule,
                        deadline,
                        condition,
                        ignored,
                        implausible,
                        explanation);
    }

    /** A short sentence for humans explaining the outcome. */
    public String reason() {
        return explanation.get();
    }

    /** Equal when everything is, the reason's text included (its supplier is not compared). */
    @Override
    public boolean equals(Object other) {
        return other instanceof ExpiryDecision that
                && expires == that.expires
                && offsetSeconds == that.offsetSeconds
                && offsetFromRule == that.offsetFromRule
                && documentTtlIgnored == that.documentTtlIgnored
                && implausibleValue == that.implausibleValue
                && Objects.equals(rule, that.rule)
                && Objects.equals(base, that.base)
                && Objects.equals(deadline, that.deadline)
                && condition.equals(that.condition)
                && reason().equals(that.reason());
    }

    @Override
    public int hashCode() {
        return Objects.hash(expires, rule, deadline, condition, reason());
    }
}
