package io.ttlstreams.processor;

import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.event.EventTimeWindow;
import io.ttlstreams.event.OperationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Parses raw change events and routes them: document events to the scheduler, namespace-wide events
 * (drop, dropDatabase, rename, invalidate) to the control topic, which carries them to every task,
 * and events that cannot be parsed to the dead-letter topic.
 *
 * <p>Namespace-wide events go through a topic because the documents of one namespace are spread over
 * all partitions, hence all tasks, while the drop event itself arrives on one partition only.
 *
 * <p>An event whose times lie outside the {@link EventTimeWindow} around its record's timestamp (capped at the
 * processor's clock) is dead-lettered too: no time it claims reaches the scheduler.
 *
 * <p>Parsing is total: whatever the record holds, even JSON nested deep enough to overflow a recursive decoder, it
 * ends as a routed event or a dead letter ({@link DeadLetterRoute}), and the next record is processed.
 */
public final class ChangeEventProcessor implements Processor<String, String, String, Object> {

    private final ChangeEventParser parser;
    private final EventTimeWindow window;
    private final DeadLetters deadLetters;
    private final Outputs outputs;
    private ProcessorContext<String, Object> context;
    private TtlMetrics metrics;
    private DeadLetterRoute deadLetterRoute;
    private TtlMetrics.Count skipped;

    public ChangeEventProcessor(
            ChangeEventParser parser, EventTimeWindow window, DeadLetters deadLetters, Outputs outputs) {
        this.parser = parser;
        this.window = window;
        this.deadLetters = deadLetters;
        this.outputs = outputs;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.metrics = TtlMetrics.forTask(context);
        this.deadLetterRoute = new DeadLetterRoute(context, metrics, deadLetters, outputs.deadLetters());
        this.skipped = metrics.counter(TtlMetrics.SKIPPED);
    }

    @Override
    public void process(Record<String, String> record) {
        // Whatever the cause, a malformed record must not stop the processor: park it, count it.
        deadLetterRoute.guard(record, "a change event", record::value, () -> route(record));
    }

    private void route(Record<String, String> record) {
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
        ChangeEvent event = parser.parse(topic, record.key(), record.value(), record.timestamp());
        // The record's timestamp, capped at the processor's clock: the time an event's claimed times are checked at.
        window.check(topic, event, Math.min(record.timestamp(), context.currentSystemTimeMs()));
        if (event.operationType() == OperationType.OTHER) {
            skipped.record();
        } else if (event.isNamespaceWide()) {
            context.forward(
                    new Record<String, ChangeEvent>(
                            event.namespace().toString(), event, record.timestamp(), record.headers()),
                    outputs.control());
        } else {
            context.forward(record.withValue(event), outputs.scheduler());
        }
    }

    @Override
    public void close() {
        if (metrics != null) {
            metrics.close();
        }
    }
}
