package io.ttlstreams.processor;

import java.util.Optional;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where a processor parks a source record it cannot read: forwarded to the dead-letter node as it was read and counted
 * as {@value TtlMetrics#DEAD_LETTERED}, so that a malformed record never stops the processor.
 */
final class DeadLetterRoute {

    private final ProcessorContext<String, Object> context;
    private final DeadLetters deadLetters;
    private final String node;
    private final Sensor deadLettered;

    /**
     * @param metrics the task's metrics, which count the records parked
     * @param node the dead-letter node to forward to
     */
    DeadLetterRoute(
            ProcessorContext<String, Object> context, TtlMetrics metrics, DeadLetters deadLetters, String node) {
        this.context = context;
        this.deadLetters = deadLetters;
        this.node = node;
        this.deadLettered = metrics.counter(TtlMetrics.DEAD_LETTERED);
    }

    /** Dead-letters {@code record}, read from {@code source}, for {@code error}. */
    void park(Record<String, String> record, Optional<RecordMetadata> source, Throwable error) {
        deadLettered.record();
        context.forward(deadLetters.letter(record, record.value(), source, error), node);
    }
}
