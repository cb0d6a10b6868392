package io.ttlstreams.contract;

import java.util.Optional;

/**
 * Why the sink guard refused a delete command, as a short stable label: the guard writes it into the reason Connect
 * records with the dead letter ({@value #PREFIX}{@code [signature] ...}), and the processor reads it back from {@code
 * ttl.sink.dlq} to count refusals by reason. The labels are few and fixed, so that a metric tagged with them stays
 * small.
 */
public enum SinkRefusal {
    /** Unsigned, signed with a key the sink does not trust, a bad signature, or signature headers it cannot read. */
    SIGNATURE("signature"),
    /** The record's key or value is not text as the sink reads it. */
    FORMAT("format"),
    /** Not a command of the processor's grammar (fields, filter, operators). */
    GRAMMAR("grammar"),
    /** A namespace outside the guard's {@code allowed.namespaces}. */
    NAMESPACE("namespace"),
    /** A mark command setting a field other than its namespace's mark field ({@code mark.fields}). */
    MARK("mark"),
    /** A deadline later than the sink's clock plus its skew tolerance. */
    NOT_DUE("not-due"),
    /** No issue time: the processor always writes one, so the command is no command of its. */
    NO_ISSUE_TIME("no-issue-time"),
    /** Issued longer ago than {@code command.max.age.ms}: stale or replayed. */
    STALE("stale"),
    /** Issued later than the sink's clock plus its skew tolerance. */
    ISSUED_AHEAD("issued-ahead");

    /** How every refusal's reason starts. */
    public static final String PREFIX = "Delete command refused by the sink guard: ";

    private final String label;

    SinkRefusal(String label) {
        this.label = label;
    }

    /** The label, as in the reason and in metrics: {@code signature}, {@code not-due}, ... */
    public String label() {
        return label;
    }

    /** The reason the guard gives for a command refused for this with {@code detail}. */
    public String reason(String detail) {
        return PREFIX + "[" + label + "] " + detail;
    }

    /**
     * The refusal a reason names; empty for a text that is no refusal of the guard, or one of a guard that wrote no
     * label yet.
     */
    public static Optional<SinkRefusal> of(String reason) {
        if (reason == null || !reason.startsWith(PREFIX + "[")) {
            return Optional.empty();
        }
        int end = reason.indexOf(']', PREFIX.length());
        if (end < 0) {
            return Optional.empty();
        }
        String label = reason.substring(PREFIX.length() + 1, end);
        for (SinkRefusal refusal : values()) {
            if (refusal.label.equals(label)) {
                return Optional.of(refusal);
            }
        }
        return Optional.empty();
    }
}
