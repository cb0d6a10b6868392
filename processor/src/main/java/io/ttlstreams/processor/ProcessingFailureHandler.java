package io.ttlstreams.processor;

import io.micrometer.core.instrument.MeterRegistry;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.serde.ChangeEventSerde;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' {@code processing.exception.handler} for ttl-streams (KIP-1033): what happens to a record on which a
 * processor of the topology threw, such as a change event the scheduler cannot apply (a bug, or an event whose delete
 * command would be too large to send). The record is dead-lettered as {@link DeadLetters} writes every dead letter,
 * returned to Kafka Streams with the answer to go on (KIP-1034), which sends it to the dead-letter topic in the task's
 * transaction; it is counted as {@value TtlMetrics#DEAD_LETTERED} of its task and logged, and the processor goes on
 * with the next record. Its value is the record as the failing processor received it: the raw text for a parser, the
 * parsed event or guard decision as JSON for the scheduler.
 *
 * <p>A punctuation that threw fails the stream thread: the punctuation is what deletes, and a task that went on without
 * it would look healthy while expiring nothing. Kafka Streams hands this handler exceptions only: an {@link Error}
 * (out of memory, say) fails the thread without it.
 *
 * <p>What a parser rejects is not this handler's: checking a claim and finding it false is the parser's result, which
 * it dead-letters itself ({@link ClaimProcessor#reject}), so that a malformed event is dead-lettered whichever handler
 * an operator configures.
 *
 * <p>Configured from the Kafka Streams settings: the dead-letter topic ({@code errors.dead.letter.queue.topic.name}),
 * the producer's {@code max.request.size} and the meter registry ({@value TtlMetrics#REGISTRY_CONFIG}).
 */
public final class ProcessingFailureHandler implements ProcessingExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessingFailureHandler.class);

    private final ChangeEventSerde eventSerde = new ChangeEventSerde();
    private String dlqTopic;
    private DeadLetters deadLetters;
    private MeterRegistry registry;

    @Override
    public void configure(Map<String, ?> configs) {
        this.dlqTopic = DeadLetters.topic(configs);
        this.deadLetters = new DeadLetters(DeadLetters.producerLimit(configs));
        this.registry = TtlMetrics.registry(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        if (record == null) {
            // A punctuation's failure, which its processor has logged and counted already.
            return Response.fail();
        }
        LOG.warn(
                "Task {} could not process a record at {} ({}); dead-lettered: {}",
                context.taskId(),
                context.processorNodeId(),
                context.topic() == null ? "-" : context.topic() + "-" + context.partition() + "@" + context.offset(),
                // Cut as the dead letter's header is: a message can quote the whole input.
                DeadLetters.errorText(exception.toString()));
        LOG.debug("Dead-lettered a record at {}", context.processorNodeId(), exception);
        // The task's counter, which its processors registered: Micrometer hands back the meter they hold.
        TtlMetrics.forTask(registry, context.taskId().toString())
                .counter(TtlMetrics.DEAD_LETTERED)
                .increment();
        Record<String, String> failed = new Record<>(
                record.key() == null ? null : record.key().toString(),
                text(record.value()),
                record.timestamp(),
                record.headers());
        return Response.resume(List.of(deadLetters.letter(dlqTopic, context, failed, exception)));
    }

    /** A record's value as its dead letter holds it: text as it was read, an event or decision as JSON. */
    private String text(Object value) {
        if (value instanceof ChangeEvent event) {
            return new String(eventSerde.serializer().serialize(null, event), StandardCharsets.UTF_8);
        }
        if (value instanceof GuardDecision decision) {
            return decision.toJson();
        }
        return value == null ? null : value.toString();
    }
}
