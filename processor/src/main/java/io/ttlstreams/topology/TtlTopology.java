package io.ttlstreams.topology;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.processor.ChangeEventProcessor;
import io.ttlstreams.processor.DeadLetters;
import io.ttlstreams.processor.ExpirySchedulerProcessor;
import io.ttlstreams.processor.SchedulerSettings;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.serde.AvroSerde;
import io.ttlstreams.serde.ChangeEventSerde;
import io.ttlstreams.state.ScheduleStores;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The processor topology:
 *
 * <pre>
 *  change-event topics ──► parse ──► expiry-scheduler ──► ttl.delete.topic
 *                            │  ▲          │   (stores: schedule, index, namespace-epochs)
 *                            │  │          └──► ttl.audit.topic (optional)
 *                            │  └── control-source ◄── ttl.control.topic ◄── (to every partition)
 *                            └──► ttl.dlq.topic  (and so does the scheduler)
 * </pre>
 *
 * The control topic carries namespace-wide events (drop, rename, ...) to every partition, so that every
 * task cancels its share of the namespace; it must have at least as many partitions as the largest
 * source topic, which the launcher ensures.
 */
public final class TtlTopology {

    /** Source node reading the change-event topics. */
    public static final String SOURCE = "change-events";
    /** Processor node parsing and routing change events. */
    public static final String PARSER = "parse";
    /** Source node reading the control topic. */
    public static final String CONTROL_SOURCE = "control-source";

    private TtlTopology() {}

    /** Builds the topology for {@code config}. */
    public static Topology build(TtlStreamsConfig config) {
        return build(config, SchedulerSettings.from(config));
    }

    /** Builds the topology with explicit scheduler settings (tests and benchmarks swap the clock). */
    public static Topology build(TtlStreamsConfig config, SchedulerSettings settings) {
        ChangeEventParser parser = new ChangeEventParser(config.topicNamespaceMapping());
        ChangeEventSerde eventSerde = new ChangeEventSerde();
        Topology topology = new Topology();
        topology.addSource(
                SOURCE,
                new StringDeserializer(),
                new StringDeserializer(),
                config.sourceTopics().toArray(String[]::new));
        topology.addProcessor(PARSER, () -> new ChangeEventProcessor(parser), SOURCE);
        topology.addSink(
                ChangeEventProcessor.CONTROL_CHILD,
                config.controlTopic(),
                new StringSerializer(),
                eventSerde.serializer(),
                TtlTopology.<ChangeEvent>toEveryPartition(),
                PARSER);
        topology.addSource(CONTROL_SOURCE, new StringDeserializer(), eventSerde.deserializer(), config.controlTopic());
        topology.addProcessor(
                ChangeEventProcessor.SCHEDULER_CHILD,
                () -> new ExpirySchedulerProcessor(settings),
                PARSER,
                CONTROL_SOURCE);
        topology.addStateStore(ScheduleStores.schedule(), ChangeEventProcessor.SCHEDULER_CHILD);
        topology.addStateStore(ScheduleStores.index(), ChangeEventProcessor.SCHEDULER_CHILD);
        topology.addStateStore(ScheduleStores.namespaceEpochs(), ChangeEventProcessor.SCHEDULER_CHILD);
        topology.addSink(
                ExpirySchedulerProcessor.DELETES_CHILD,
                config.deleteTopic(),
                new StringSerializer(),
                new StringSerializer(),
                ChangeEventProcessor.SCHEDULER_CHILD);
        Optional<String> auditTopic = config.auditTopic();
        auditTopic.ifPresent(topic -> topology.addSink(
                ExpirySchedulerProcessor.AUDIT_CHILD,
                topic,
                new StringSerializer(),
                AvroSerde.of(ExpiryEvent.class).serializer(),
                ChangeEventProcessor.SCHEDULER_CHILD));
        topology.addSink(
                DeadLetters.SINK,
                config.dlqTopic(),
                new StringSerializer(),
                new StringSerializer(),
                PARSER,
                ChangeEventProcessor.SCHEDULER_CHILD);
        return topology;
    }

    /** Multicasts every record to all partitions of the topic (KIP-837). */
    private static <V> StreamPartitioner<String, V> toEveryPartition() {
        return (topic, key, value, numPartitions) ->
                Optional.of(IntStream.range(0, numPartitions).boxed().collect(Collectors.toUnmodifiableSet()));
    }
}
