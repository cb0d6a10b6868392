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
 */
public final class ExpiryDecision {

    private final boolean expires;
    private final String rule;
    private final Instant base;
    private final long offsetSeconds;
    private final boolean offsetFromRule;
    private final Instant deadline;
    private final BsonDocument condition;
    private final boolean documentTtlIgnored;
    private final boolean implausibleValue;
    private final Supplier<String> reason;
    private String reasonText;

    private ExpiryDecision(
            boolean expires,
            String rule,
            Instant base,
            long offsetSeconds,
            boolean offsetFromRule,
            Instant deadline,
            BsonDocument condition,
            boolean documentTtlIgnored,
            boolean implausibleValue,
            Supplier<String> reason) {
        this.expires = expires;
        this.rule = rule;
        this.base = base;
        this.offsetSeconds = offsetSeconds;
        this.offsetFromRule = offsetFromRule;
        this.deadline = deadline;
        this.condition = Objects.requireNonNull(condition, "condition");
        this.documentTtlIgnored = documentTtlIgnored;
        this.implausibleValue = implausibleValue;
        this.reason = Objects.requireNonNull(reason, "reason");
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

    /**
     * A decision that the document does not expire because its epoch value cannot be meant as a deadline (see {@link
     * #implausibleValue()}), for a reason built when asked for.
     */
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
                        reason);
    }

    /** Whether the document is to be deleted at {@link #deadline()}. */
    public boolean expires() {
        return expires;
    }

    /** When the document expires; null unless it {@link #expires()}. */
    public Instant deadline() {
        return deadline;
    }

    /** The name of the rule that set the deadline; null unless the document {@link #expires()}. */
    public String rule() {
        return rule;
    }

    /**
     * The instant the deadline counts from: the field's date (field mode) or the change time (last-modified); null
     * unless the document {@link #expires()}.
     */
    public Instant base() {
        return base;
    }

    /** Seconds from {@link #base()} to the deadline; 0 unless the document {@link #expires()}. */
    public long offsetSeconds() {
        return offsetSeconds;
    }

    /**
     * Whether {@link #offsetSeconds()} is the rule's {@code expire.after.seconds}, so that a changed rule offset moves
     * the deadline; false when the document's own TTL set it.
     */
    public boolean offsetFromRule() {
        return offsetFromRule;
    }

    /**
     * The filter the delete command adds to the document key, so that a document that changed after the deadline was
     * computed is not deleted on the strength of its old value: for a field rule {@code {"<field path>": {"$eq":
     * <value as found>}}}; empty unless the document {@link #expires()}. Each decision has its own copy.
     */
    public BsonDocument condition() {
        return condition;
    }

    /** A per-document TTL value was present but invalid, so a rule's default applied; reported for counting. */
    public boolean documentTtlIgnored() {
        return documentTtlIgnored;
    }

    /**
     * An applicable rule found an epoch number no deadline means (before 1971, after year 9999, or more than five
     * years before the change) and scheduled nothing on it; reported for counting.
     */
    public boolean implausibleValue() {
        return implausibleValue;
    }

    /** A short sentence for humans explaining the outcome, built on first call. */
    public String reason() {
        if (reasonText == null) {
            reasonText = reason.get();
        }
        return reasonText;
    }

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

    @Override
    public String toString() {
        return "ExpiryDecision{expires=" + expires + ", deadline=" + deadline + ", rule=" + rule + ", base=" + base
                + ", offsetSeconds=" + offsetSeconds + ", condition=" + condition + ", reason=" + reason() + "}";
    }
}
