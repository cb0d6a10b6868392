package io.ttlstreams.event;

/**
 * A source record that is not a usable change event: not a JSON document, no operation type, no namespace, no
 * document id, or a field of the wrong type. The message names what is wrong.
 */
public class InvalidChangeEventException extends RuntimeException {

    public InvalidChangeEventException(String message) {
        super(message);
    }

    public InvalidChangeEventException(String message, Throwable cause) {
        super(message, cause);
    }
}
