package io.ttlstreams.contract;

import java.util.Objects;

/**
 * A delete command that must not be applied: unsigned or wrongly signed, malformed, or with a filter outside the
 * grammar the processor emits. The message is the precise reason, written for the operator who finds the record in
 * the sink's dead-letter topic; {@link #refusal()} is its kind.
 */
public final class InvalidDeleteCommandException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final SinkRefusal refusal;

    /** A command outside the grammar ({@link SinkRefusal#GRAMMAR}), for {@code reason}. */
    public InvalidDeleteCommandException(String reason) {
        this(SinkRefusal.GRAMMAR, reason);
    }

    /**
     * @param refusal the kind of refusal
     * @param reason why the command is refused
     */
    public InvalidDeleteCommandException(SinkRefusal refusal, String reason) {
        super(reason);
        this.refusal = Objects.requireNonNull(refusal, "refusal");
    }

    /** The kind of refusal. */
    public SinkRefusal refusal() {
        return refusal;
    }
}
