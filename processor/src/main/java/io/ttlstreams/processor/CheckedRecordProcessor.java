package io.ttlstreams.processor;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * A processor of raw records that are claims to check: a record that passes {@link #check} is routed on; one that
 * fails it, or fails on its way, through its own fault is dead-lettered as it was read and counted ({@link
 * DeadLetterRoute}), and the next record is processed; a failure that is not the record's (see {@link
 * DeadLetters#isCausedByRecord}) is thrown on.
 *
 * @param <T> what a record reads as once checked
 */
abstract class CheckedRecordProcessor<T> implements Processor<String, String, String, Object> {

    private final String kind;
    private final DeadLetters deadLetters;
    private final Outputs outputs;
    private ProcessorContext<String, Object> context;
    private TtlMetrics metrics;
    private DeadLetterRoute deadLetterRoute;

    CheckedRecordProcessor(String kind, DeadLetters deadLetters, Outputs outputs) {
        this.kind = kind;
        this.deadLetters = deadLetters;
        this.outputs = outputs;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.metrics = TtlMetrics.forTask(context);
        this.deadLetterRoute = new DeadLetterRoute(context, metrics, deadLetters, outputs.deadLetters());
    }

    /** Reads and checks {@code record}, read from {@code topic} ("" when unknown); throws what is wrong with it. */
    abstract T check(Record<String, String> record, String topic);

    /** Forwards the checked {@code value} of {@code record} where it belongs. */
    abstract void route(Record<String, String> record, T value);

    @Override
    public final void process(Record<String, String> record) {
        // Whatever the cause, a malformed record must not stop the processor: park it, count it.
        deadLetterRoute.guard(record, "a " + kind, record::value, () -> {
            String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
            route(record, check(record, topic));
        });
    }

    /** The record's timestamp, capped at the processor's clock: the time an event's claimed times are checked at. */
    final long cappedTimestamp(Record<String, String> record) {
        return Math.min(record.timestamp(), context.currentSystemTimeMs());
    }

    final ProcessorContext<String, Object> context() {
        return context;
    }

    final TtlMetrics metrics() {
        return metrics;
    }

    final Outputs outputs() {
        return outputs;
    }

    @Override
    public void close() {
        if (metrics != null) {
            metrics.close();
        }
    }
}
