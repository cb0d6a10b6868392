package io.ttlstreams.processor;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a parser dead-letters a record it rejects: the {@link DeadLetters} record, forwarded to the dead-letter node,
 * counted as {@value TtlMetrics#DEAD_LETTERED} and logged. A rejection is the parser's result, not a failure, so it
 * does not go through Kafka Streams' processing exception handler, which an operator may replace: a malformed event is
 * dead-lettered whatever it is. A processor that throws is {@link ProcessingFailureHandler}'s, which writes the same
 * record and counts it in the same counter; a send that fails is {@link SendFailureHandler}'s.
 */
final class DeadLetterRoute {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterRoute.class);

    private final ProcessorContext<String, Object> context;
    private final DeadLetters deadLetters;
    private final String node;
    private final TtlMetrics.Count deadLettered;

    DeadLetterRoute(
            ProcessorContext<String, Object> context, TtlMetrics metrics, DeadLetters deadLetters, String node) {
        this.context = context;
        this.deadLetters = deadLetters;
        this.node = node;
        this.deadLettered = metrics.counter(TtlMetrics.DEAD_LETTERED);
    }

    /**
     * Dead-letters {@code record}, rejected for {@code reason}.
     *
     * @param what what the record is, for the log line
     */
    void reject(Record<String, String> record, String what, RuntimeException reason) {
        LOG.warn(
                "Task {} rejected {} at {}; dead-lettered: {}",
                context.taskId(),
                what,
                context.recordMetadata()
                        .map(m -> m.topic() + "-" + m.partition() + "@" + m.offset())
                        .orElse("-"),
                // Cut as the dead letter's header is: a parser's message can quote the whole input.
                DeadLetters.errorText(reason.toString()));
        LOG.debug("Dead-lettered {}", what, reason);
        deadLettered.record();
        context.forward(deadLetters.letter(record, record.value(), context.recordMetadata(), reason), node);
    }
}
