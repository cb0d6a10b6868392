package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.event.EventTimeWindow;
import io.ttlstreams.event.InvalidChangeEventException;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.event.SourceClock;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses raw change events and routes them: document events to the scheduler, namespace-wide events
 * (drop, dropDatabase, rename, invalidate) to the control topic, which carries them to every task,
 * and events that cannot be parsed to the dead-letter topic.
 *
 * <p>Namespace-wide events go through a topic because the documents of one namespace are spread over
 * all partitions, hence all tasks, while the drop event itself arrives on one partition only.
 *
 * <p>An event whose times lie too far ahead of its record's timestamp (capped at the processor's clock) for the
 * {@link EventTimeWindow}, widened by MongoDB's measured clock offset ({@link SourceClock}), is dead-lettered too: no
 * time it claims reaches the scheduler. An event that passes goes on with its event time on this processor's clock.
 *
 * <p>Parsing is total: whatever the record holds, even JSON nested deep enough to overflow a recursive decoder, it
 * ends as a routed event or, rejected ({@link InvalidChangeEventException}), as a dead letter ({@link
 * ClaimProcessor#reject}), and the next record is processed. Anything else that throws here is a bug, which Kafka
 * Streams hands to {@link ProcessingFailureHandler}.
 */
public final class ChangeEventProcessor extends ClaimProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeEventProcessor.class);

    private final ChangeEventParser parser;
    private Counter skipped;
    /** The topics whose far-back events this task has logged, once each. */
    private final Set<String> farBackTopics = new HashSet<>();

    public ChangeEventProcessor(
            ChangeEventParser parser,
            EventTimeWindow window,
            SourceClock sourceClock,
            DeadLetters deadLetters,
            Outputs outputs) {
        super(window, sourceClock, deadLetters, outputs);
        this.parser = parser;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        super.init(context);
        this.skipped = metrics.counter(TtlMetrics.SKIPPED);
    }

    @Override
    public void process(Record<String, String> record) {
        ChangeEvent event;
        try {
            event = parse(record);
        } catch (InvalidChangeEventException e) {
            reject(record, "a change event", e);
            return;
        }
        if (event.operationType() == OperationType.OTHER) {
            skipped.increment();
        } else if (event.isNamespaceWide()) {
            context.forward(
                    new Record<String, ChangeEvent>(
                            event.namespace().toString(), event, record.timestamp(), record.headers()),
                    outputs.control());
        } else {
            context.forward(record.withValue(event), outputs.scheduler());
        }
    }

    /**
     * The record's event, its times checked, on this processor's clock.
     *
     * @throws InvalidChangeEventException if it is no usable change event, or its times are implausible
     */
    private ChangeEvent parse(Record<String, String> record) {
        String topic = topic();
        ChangeEvent parsed = parser.parse(topic, record.key(), record.value(), record.timestamp());
        OptionalLong offset = sourceClock.offsetMillis();
        if (checkTimes(record, parsed, offset) && farBackTopics.add(topic)) {
            LOG.warn(
                    "Topic {} carries change events from further back than {}={} ms before their records (a source"
                            + " resuming far back): applied, each deadline counting from no earlier than its record",
                    topic,
                    SourceOptions.EVENT_TIME_MAX_LAG_MS_CONFIG,
                    window.maxLag().toMillis());
        }
        // On this processor's clock, as the deadlines and the blast-radius guard compare it; clusterTime stays as
        // MongoDB stamped it, the order between its own events.
        return offset.isEmpty()
                ? parsed
                : parsed.withEventTime(parsed.eventTime().minusMillis(offset.getAsLong()));
    }
}
