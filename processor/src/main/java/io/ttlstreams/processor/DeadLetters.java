package io.ttlstreams.processor;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Builds dead-letter records: the input as it was, with headers that say where it came from and why
 * it could not be processed, so that nothing is lost and an operator can replay it after a fix.
 */
public final class DeadLetters {

    /** Header: the topic the record was read from. */
    public static final String SOURCE_TOPIC_HEADER = "ttl.dlq.source.topic";
    /** Header: the partition the record was read from. */
    public static final String SOURCE_PARTITION_HEADER = "ttl.dlq.source.partition";
    /** Header: the offset the record was read from. */
    public static final String SOURCE_OFFSET_HEADER = "ttl.dlq.source.offset";
    /** Header: the error message. */
    public static final String ERROR_HEADER = "ttl.dlq.error";
    /** Header: the error's class name. */
    public static final String ERROR_CLASS_HEADER = "ttl.dlq.error.class";

    private DeadLetters() {}

    /**
     * Returns the dead-letter record for {@code value}, keeping the original key and timestamp.
     *
     * @param original the record that failed (its key, timestamp and headers are kept)
     * @param value the value to dead-letter, as it was read
     * @param source where the record was read from, if known (a punctuator has no source)
     * @param error why it failed
     */
    public static <K> Record<K, String> of(
            Record<K, ?> original, String value, Optional<RecordMetadata> source, Throwable error) {
        Headers headers = new RecordHeaders(original.headers().toArray());
        source.ifPresent(metadata -> {
            put(headers, SOURCE_TOPIC_HEADER, metadata.topic());
            put(headers, SOURCE_PARTITION_HEADER, Integer.toString(metadata.partition()));
            put(headers, SOURCE_OFFSET_HEADER, Long.toString(metadata.offset()));
        });
        put(headers, ERROR_HEADER, String.valueOf(error.getMessage()));
        put(headers, ERROR_CLASS_HEADER, error.getClass().getName());
        return new Record<>(original.key(), value, original.timestamp(), headers);
    }

    private static void put(Headers headers, String name, String value) {
        headers.remove(name);
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
