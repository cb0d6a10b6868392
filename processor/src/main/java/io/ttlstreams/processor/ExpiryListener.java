package io.ttlstreams.processor;

/**
 * Hears what the scheduler does with due documents, for metrics outside Kafka Streams' own registry (the HTTP
 * surface's Prometheus histograms). Called on stream threads, so implementations must be cheap, thread-safe and must
 * not block or throw. Pure: no I/O is expected of the caller.
 */
public interface ExpiryListener {

    /** Hears nothing. */
    ExpiryListener NONE = new ExpiryListener() {};

    /**
     * A delete command was emitted for the first time.
     *
     * @param rule the rule that set the deadline
     * @param lagMillis emission time minus deadline
     */
    default void emitted(String rule, long lagMillis) {}

    /**
     * The change stream reported a document deleted while its delete command awaited confirmation.
     *
     * @param rule the rule that set the deadline
     * @param lagMillis the delete event's time minus the deadline
     */
    default void confirmed(String rule, long lagMillis) {}

    /**
     * No confirmation came after the last attempt: the scheduler gave up on the document.
     *
     * @param rule the rule that set the deadline
     */
    default void unconfirmed(String rule) {}
}
