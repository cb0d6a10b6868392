package io.ttlstreams.resync;

/** Where a resync's events go: {@link KafkaResyncPublisher} in production, anything a test needs in between. */
public interface ResyncSink extends AutoCloseable {

    /** Sends one event; it may be buffered until {@link #flush()}. */
    void publish(ResyncEvent event);

    /**
     * Waits until every event published so far is acknowledged.
     *
     * @throws org.apache.kafka.common.KafkaException when one could not be published
     */
    void flush();

    @Override
    void close();
}
