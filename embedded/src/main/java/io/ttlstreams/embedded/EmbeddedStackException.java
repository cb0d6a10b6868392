package io.ttlstreams.embedded;

/**
 * A component of the embedded stack failed to start, stop or do what it was asked to; the message says which
 * component and why (for connectors, including the connector's own stack trace).
 */
public class EmbeddedStackException extends RuntimeException {

    /**
     * @param message what failed, in words a user of the CLI can act on
     */
    public EmbeddedStackException(String message) {
        super(message);
    }

    /**
     * @param message what failed, in words a user of the CLI can act on
     * @param cause   the underlying failure
     */
    public EmbeddedStackException(String message, Throwable cause) {
        super(message, cause);
    }
}
