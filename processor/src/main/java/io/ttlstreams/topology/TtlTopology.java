package io.ttlstreams.topology;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.event.EventTimeWindow;
import io.ttlstreams.event.SourceClock;
import io.ttlstreams.processor.ChangeEventProcessor;
import io.ttlstreams.processor.ControlEventProcessor;
import io.ttlstreams.processor.DeadLetters;
import io.ttlstreams.processor.ExpirySchedulerProcessor;
import io.ttlstreams.processor.Outputs;
import io.ttlstreams.processor.ProcessingFailureHandler;
import io.ttlstreams.processor.SchedulerSettings;
import io.ttlstreams.processor.SendFailureHandler;
import io.ttlstreams.processor.SinkDeadLetterProcessor;
import io.ttlstreams.processor.SinkWriteFailures;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.serde.AvroSerde;
import io.ttlstreams.serde.ChangeEventSerde;
import io.ttlstreams.serde.DeleteCommandSerializer;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The processor topology:
 *
 * <pre>
 *  change-event topics ──► parse ──► expiry-scheduler ──► ttl.delete.topic
 *                            │  ▲          │   (stores: schedule, index, task, namespace-epochs, rule-versions,
 *                            │  │          │    guard-state, unscheduled-notes)
 *                            │  │          ├──► ttl.audit.topic (optional)
 *                            │  │          └──► ttl.expired.topic (optional)
 *                            │  └── control-parse ◄── control-source ◄── ttl.control.topic ◄── (to every partition)
 *                            └──► ttl.dlq.topic  (and so does control-parse: what they reject)
 *
 *  ttl.sink.dlq ──► sink-dead-letter-count   (the commands the sink refused, counted by reason)
 * </pre>
 *
 * ({@code TopologyDescriptionTest} checks the processors and stores drawn here against {@link Topology#describe()}.)
 * The control topic carries namespace-wide events (drop, rename, ...) and operators' guard decisions
 * ({@code ttl-streams approve}) to every partition, so that every task applies them to its share; it must have at least as many partitions as the largest
 * source topic, which the launcher ensures.
 *
 * <p>Both sources read plain strings, which cannot fail to deserialize; parsing happens in processors that
 * dead-letter what they reject, so that no record on any input stops a task. A record on which a processor throws
 * (the scheduler, say) is dead-lettered by Kafka Streams' processing exception handler ({@link
 * ProcessingFailureHandler}), in the same format, outside the topology's nodes.
 */
public final class TtlTopology {

    /** Source node reading the change-event topics. */
    public static final String SOURCE = "change-events";
    /** Processor node parsing and routing change events. */
    public static final String PARSER = "parse";
    /** Sink node writing namespace-wide events to the control topic. */
    public static final String CONTROL_SINK = "control-sink";
    /** Source node reading the control topic. */
    public static final String CONTROL_SOURCE = "control-source";
    /** Processor node parsing control records and passing them to the scheduler. */
    public static final String CONTROL_PARSER = "control-parse";
    /** Processor node keeping the schedule and emitting delete commands. */
    public static final String SCHEDULER = "expiry-scheduler";
    /** Sink node writing delete commands. */
    public static final String DELETES_SINK = "deletes-sink";
    /** Sink node writing audit events, when the audit topic is enabled. */
    public static final String AUDIT_SINK = "audit-sink";
    /** Sink node writing expired records, when their topic is on. */
    public static final String EXPIRED_SINK = "expired-sink";
    /** Sink node writing the dead letters of what the parsers reject; both forward to it. */
    public static final String DLQ_SINK = "dlq-sink";
    /** Source node reading the sink connector's dead letters. */
    public static final String SINK_DLQ_SOURCE = "sink-dead-letters";
    /** Processor node counting the sink connector's dead letters by reason. */
    public static final String SINK_DLQ_COUNTER = "sink-dead-letter-count";

    /**
     * The sub-topology that keeps the schedule, whose tasks ({@code 0_<partition>}) own the schedule's stores; the
     * sink's dead letters are counted by sub-topology 1 (the description in docs/topology.md pins both).
     */
    public static final int SCHEDULE_SUBTOPOLOGY = 0;

    /** Where each processor forwards to: these nodes, by name. */
    private static final Outputs OUTPUTS =
            new Outputs(SCHEDULER, CONTROL_SINK, DELETES_SINK, AUDIT_SINK, EXPIRED_SINK, DLQ_SINK);

    private TtlTopology() {}

    /**
     * The Kafka Streams settings to run the topology with: {@link TtlStreamsConfig#streamsProperties()}, plus {@code
     * processing.exception.handler} {@link ProcessingFailureHandler}, which dead-letters a record a processor threw
     * on and goes on, and {@code production.exception.handler} {@link SendFailureHandler}, which dead-letters and
     * logs a record of the processor's topics the producer failed to send (such as one over {@code
     * max.request.size}) instead of failing the stream thread; and the dead-letter topic as Kafka Streams' {@code
     * errors.dead.letter.queue.topic.name}, where both write (so does a handler of Kafka Streams' own, in its own
     * format, if a user configures one: a user's own handlers win). What the parsers reject they dead-letter
     * themselves. A fresh copy on each call.
     */
    public static Properties streamsProperties(TtlStreamsConfig config) {
        Properties properties = config.streamsProperties();
        properties.putIfAbsent(
                StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, ProcessingFailureHandler.class.getName());
        properties.putIfAbsent(
                StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, SendFailureHandler.class.getName());
        properties.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, config.dlqTopic());
        return properties;
    }

    /** Builds the topology for {@code config}, for source topics of {@code partitions} partitions. */
    public static Topology build(TtlStreamsConfig config, int partitions) {
        return build(config, new SchedulerSettings(config, partitions), new SourceClock());
    }

    /** Builds the topology for {@code config} and one partition, as TopologyTestDriver and benchmarks run it. */
    public static Topology build(TtlStreamsConfig config) {
        return build(config, 1);
    }

    /**
     * Builds the topology with explicit scheduler settings (tests swap the clock) and MongoDB's clock as the health
     * check measures it, which the event-time window follows.
     */
    public static Topology build(TtlStreamsConfig config, SchedulerSettings settings, SourceClock sourceClock) {
        ChangeEventParser parser = ChangeEventParser.forConfig(config);
        EventTimeWindow window = new EventTimeWindow(config.eventTimeMaxFutureSkew(), config.eventTimeMaxLag());
        ChangeEventSerde eventSerde = new ChangeEventSerde();
        DeadLetters deadLetters = new DeadLetters(DeadLetters.producerLimit(config.streamsProperties()));
        Topology topology = new Topology();
        topology.addSource(
                SOURCE,
                new StringDeserializer(),
                new StringDeserializer(),
                config.sourceTopics().toArray(String[]::new));
        topology.addProcessor(
                PARSER, () -> new ChangeEventProcessor(parser, window, sourceClock, deadLetters, OUTPUTS), SOURCE);
        topology.addSink(
                CONTROL_SINK,
                config.controlTopic(),
                new StringSerializer(),
                eventSerde.serializer(),
                TtlTopology.<ChangeEvent>toEveryPartition(),
                PARSER);
        topology.addSource(CONTROL_SOURCE, new StringDeserializer(), new StringDeserializer(), config.controlTopic());
        topology.addProcessor(
                CONTROL_PARSER,
                () -> new ControlEventProcessor(window, sourceClock, deadLetters, OUTPUTS),
                CONTROL_SOURCE);
        // What the sink's dead letters say of its writes, for the scheduler beside what the connector monitor says.
        SinkWriteFailures writeFailures = new SinkWriteFailures(config.sinkRecovery());
        SchedulerSettings scheduling = settings.withSink(settings.sink().and(writeFailures));
        // The supplier brings the scheduler's stores (ProcessorSupplier#stores), so they are attached with it.
        topology.addProcessor(
                SCHEDULER, ExpirySchedulerProcessor.supplier(scheduling, OUTPUTS), PARSER, CONTROL_PARSER);
        topology.addSink(
                DELETES_SINK,
                config.deleteTopic(),
                new StringSerializer(),
                new DeleteCommandSerializer(config.commandSigningKey()),
                SCHEDULER);
        config.auditTopic()
                .ifPresent(topic -> topology.addSink(
                        AUDIT_SINK,
                        topic,
                        new StringSerializer(),
                        AvroSerde.of(ExpiryEvent.class).serializer(),
                        SCHEDULER));
        config.expiryEvents()
                .topic()
                .ifPresent(topic -> topology.addSink(
                        EXPIRED_SINK, topic, new StringSerializer(), new StringSerializer(), SCHEDULER));
        topology.addSink(
                DLQ_SINK, config.dlqTopic(), new StringSerializer(), new StringSerializer(), PARSER, CONTROL_PARSER);
        // The sink's refusals, where the operator looks: its own sub-topology, as it shares nothing with the schedule.
        topology.addSource(
                SINK_DLQ_SOURCE,
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer(),
                ConnectorConfigs.SINK_DLQ_TOPIC);
        topology.addProcessor(SINK_DLQ_COUNTER, () -> new SinkDeadLetterProcessor(writeFailures), SINK_DLQ_SOURCE);
        return topology;
    }

    /** Multicasts every record to all partitions of the topic (KIP-837). */
    private static <V> StreamPartitioner<String, V> toEveryPartition() {
        return (topic, key, value, numPartitions) ->
                Optional.of(IntStream.range(0, numPartitions).boxed().collect(Collectors.toUnmodifiableSet()));
    }
}
