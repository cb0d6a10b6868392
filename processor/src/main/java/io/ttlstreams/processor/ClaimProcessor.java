package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.EventTimeWindow;
import io.ttlstreams.event.SourceClock;
import java.util.OptionalLong;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the processors that read raw records share: each record is a claim, whose times are checked against the
 * {@link EventTimeWindow}, and a record they reject is dead-lettered: the {@link DeadLetters} record, forwarded to the
 * dead-letter node, counted as {@value TtlMetrics#DEAD_LETTERED} and logged. A rejection is the parser's result, not
 * a failure, so it does not go through Kafka Streams' processing exception handler, which an operator may replace: a
 * malformed event is dead-lettered whatever it is. A processor that throws is {@link ProcessingFailureHandler}'s,
 * which writes the same record and counts it in the same counter; a send that fails is {@link SendFailureHandler}'s.
 */
abstract class ClaimProcessor implements Processor<String, String, String, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ClaimProcessor.class);

    private final DeadLetters deadLetters;
    final EventTimeWindow window;
    final SourceClock sourceClock;
    final Outputs outputs;
    ProcessorContext<String, Object> context;
    TtlMetrics metrics;
    private Counter deadLettered;

    ClaimProcessor(EventTimeWindow window, SourceClock sourceClock, DeadLetters deadLetters, Outputs outputs) {
        this.window = window;
        this.sourceClock = sourceClock;
        this.deadLetters = deadLetters;
        this.outputs = outputs;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.metrics = TtlMetrics.forTask(context);
        this.deadLettered = metrics.counter(TtlMetrics.DEAD_LETTERED);
    }

    /** The topic of the record being processed. */
    String topic() {
        return context.recordMetadata().map(RecordMetadata::topic).orElse("");
    }

    /**
     * Checks the times {@code event} of {@code record} claims against the window, at the record's timestamp capped at
     * the processor's clock, MongoDB's clock {@code offset} from it widening the window; returns whether they lie far
     * back ({@link EventTimeWindow#check}).
     *
     * @throws io.ttlstreams.event.InvalidChangeEventException when they lie too far ahead
     */
    boolean checkTimes(Record<String, String> record, ChangeEvent event, OptionalLong offset) {
        return window.check(topic(), event, Math.min(record.timestamp(), context.currentSystemTimeMs()), offset);
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
        deadLettered.increment();
        context.forward(deadLetters.letter(record, context.recordMetadata(), reason), outputs.deadLetters());
    }

    @Override
    public void close() {
        if (metrics != null) {
            metrics.close();
        }
    }
}
