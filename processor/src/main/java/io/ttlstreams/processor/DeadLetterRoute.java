package io.ttlstreams.processor;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a processor parks a record it cannot process: the {@link DeadLetters} record, forwarded to the
 * dead-letter node, counted as {@value TtlMetrics#DEAD_LETTERED} and logged, so that no record stops the processor.
 * Every processor of the topology that can fail on a record goes through it, whatever the cause: a record that fails
 * through its own fault ({@link DeadLetters#isCausedByRecord}) is parked and the next one processed; any other failure
 * is thrown on. A send that fails after the topology is {@link SendFailureHandler}'s, which writes the same record.
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
     * Runs {@code work} on {@code record}; when it fails through the record's fault ({@link
     * DeadLetters#isCausedByRecord}), dead-letters the record with {@code value} as its value and goes on. Any other
     * failure is thrown on.
     *
     * @param what what the record is, for the log line
     * @param value the record's value as it was read, or as its processor can write it back
     */
    <T> void guard(Record<String, T> record, String what, java.util.function.Supplier<String> value, Runnable work) {
        try {
            work.run();
        } catch (RuntimeException | Error e) {
            if (!DeadLetters.isCausedByRecord(e)) {
                throw e;
            }
            LOG.warn(
                    "Task {} could not process {} at {}; dead-lettered: {}",
                    context.taskId(),
                    what,
                    context.recordMetadata()
                            .map(m -> m.topic() + "-" + m.partition() + "@" + m.offset())
                            .orElse("-"),
                    // Cut as the dead letter's header is: a parser's message can quote the whole input.
                    DeadLetters.errorText(e.toString()));
            LOG.debug("Dead-lettered {}", what, e);
            deadLettered.record();
            context.forward(deadLetters.letter(record, value.get(), context.recordMetadata(), e), node);
        }
    }
}
