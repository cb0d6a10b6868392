package io.ttlstreams.contract;

/**
 * A delete command that must not be applied: unsigned or wrongly signed, malformed, or with a filter outside the
 * grammar the processor emits. The message is the precise reason, written for the operator who finds the record in
 * the sink's dead-letter topic.
 */
public final class InvalidDeleteCommandException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param reason why the command is refused */
    public InvalidDeleteCommandException(String reason) {
        super(reason);
    }
}
