package io.ttlstreams.processor;

import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.EventTimeWindow;
import io.ttlstreams.event.SourceClock;
import io.ttlstreams.serde.ChangeEventSerde;
import org.apache.kafka.streams.processor.api.Record;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the control topic: each record should be a namespace-wide event that {@link ChangeEventProcessor} wrote
 * there (through {@link ChangeEventSerde}), or an operator's {@link GuardDecision} that {@code ttl-streams approve}
 * wrote; it goes on to the scheduler. Anything else that reached the topic, a
 * record that is no such event, one with an invalid namespace or one about a single document, is rejected: this
 * processor dead-letters it ({@link ClaimProcessor#reject}), so that no record on the control topic can stop a task.
 *
 * <p>The parse checked a source event's times before writing it here, but a record on this topic is a claim like any
 * other: its times are checked again against the {@link EventTimeWindow}, with the record's timestamp (the source
 * record's, which the control record keeps) capped at the processor's clock, so that a forged record cannot set a
 * drop epoch far in the future.
 */
public final class ControlEventProcessor extends ClaimProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(ControlEventProcessor.class);

    public ControlEventProcessor(
            EventTimeWindow window, SourceClock sourceClock, DeadLetters deadLetters, Outputs outputs) {
        super(window, sourceClock, deadLetters, outputs);
    }

    @Override
    public void process(Record<String, String> record) {
        Object command;
        try {
            command = check(record);
        } catch (RuntimeException e) {
            // Every failure of the parse or the check is the record's: it is a claim this processor found false.
            reject(record, "a control record", e);
            return;
        }
        context.forward(record.withValue(command), outputs.scheduler());
    }

    /** The record's event, its times checked, or its decision. */
    private Object check(Record<String, String> record) {
        Object command = parse(record.value());
        if (command instanceof ChangeEvent event) {
            checkTimes(record, event, sourceClock.offsetMillis());
        } else if (command instanceof GuardDecision decision) {
            LOG.info("Guard decision {} on rule {}: {}", decision.id(), decision.rule(), decision.verb());
        }
        return command;
    }

    /** A namespace-wide event, or an operator's {@link GuardDecision}. */
    private static Object parse(String value) {
        if (value == null) {
            throw new IllegalArgumentException("A control record needs a value; this one is a tombstone");
        }
        if (value.contains(GuardDecision.FIELD)) {
            BsonDocument document = BoundedJson.parse(value);
            if (document.containsKey(GuardDecision.FIELD)) {
                return GuardDecision.of(document);
            }
        }
        ChangeEvent event = ChangeEventSerde.fromJson(value);
        if (!event.isNamespaceWide()) {
            throw new IllegalArgumentException("The control topic carries namespace-wide events only; this one is"
                    + " a " + event.operationType() + " of a single document");
        }
        return event;
    }
}
