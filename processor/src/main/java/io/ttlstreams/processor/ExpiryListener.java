package io.ttlstreams.processor;

/**
 * Hears what the scheduler does with due documents, for metrics outside Kafka Streams' own registry (the HTTP
 * surface's Prometheus histograms). Called on stream threads, once per event, so implementations must be cheap,
 * thread-safe and must not block; they must not throw. Pure: no I/O is expected of the caller.
 */
public interface ExpiryListener {

    /** Hears nothing. */
    ExpiryListener NONE = new ExpiryListener() {};

    /**
     * A delete command was emitted.
     *
     * @param rule the rule that set the deadline
     * @param lagMillis emission time minus deadline
     */
    default void emitted(String rule, long lagMillis) {}
}
