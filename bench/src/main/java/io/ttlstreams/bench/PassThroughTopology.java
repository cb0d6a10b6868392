package io.ttlstreams.bench;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.event.ChangeEventParser;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The baseline of the broker figures: parses each change event with the engine's own {@link ChangeEventParser}
 * and writes the raw event out, so that what ttl-streams costs beyond it is what scheduling costs.
 */
final class PassThroughTopology {

    private PassThroughTopology() {}

    /** Reads {@code config}'s source topics and writes every parsable event, unchanged, to {@code outputTopic}. */
    static Topology build(TtlStreamsConfig config, String outputTopic) {
        ChangeEventParser parser = ChangeEventParser.forConfig(config);
        Topology topology = new Topology();
        topology.addSource(
                "source",
                new StringDeserializer(),
                new StringDeserializer(),
                config.sourceTopics().toArray(String[]::new));
        topology.addProcessor("parse", () -> new PassThrough(parser), "source");
        topology.addSink("sink", outputTopic, new StringSerializer(), new StringSerializer(), "parse");
        return topology;
    }

    /** Forwards each parsable event unchanged; drops what does not parse (the workloads hold none). */
    private static final class PassThrough implements Processor<String, String, String, String> {
        private final ChangeEventParser parser;
        private ProcessorContext<String, String> context;

        PassThrough(ChangeEventParser parser) {
            this.parser = parser;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, String> record) {
            String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
            try {
                parser.parse(topic, record.key(), record.value(), record.timestamp());
            } catch (RuntimeException e) {
                return;
            }
            context.forward(record);
        }
    }
}
