package io.ttlstreams.topology;

import static io.ttlstreams.topology.PoisonRecordTest.header;
import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.processor.DeadLetters;
import io.ttlstreams.processor.TtlMetrics;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * A processor that throws on a record, run with the Kafka Streams settings of the topology ({@link
 * TtlTopology#streamsProperties}): Kafka Streams' processing exception handler dead-letters the record in the one
 * dead-letter format, counts it in the one counter, and the processor goes on with the next record.
 */
class ProcessingFailureTest {

    private static final String INPUT = "app.sessions";
    private static final String OUTPUT = "passed";

    /** Throws on the value "boom", forwards anything else: a bug that only one record meets. */
    private static final class ThrowsOnBoom implements Processor<String, String, String, String> {

        private ProcessorContext<String, String> context;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, String> record) {
            if (record.value().equals("boom")) {
                throw new IllegalStateException("a bug met " + record.value());
            }
            context.forward(record);
        }
    }

    @Test
    void shouldDeadLetterTheRecordAndGoOnWhenAProcessorThrowsOnIt() {
        TtlStreamsConfig config = TestConfigs.config(
                "application.id", "ttl-streams-test", "bootstrap.servers", "unused:9092", "ttl.dlq.topic", "errors");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Properties properties = TtlTopology.streamsProperties(config);
        properties.put(TtlMetrics.REGISTRY_CONFIG, registry);
        Topology topology = new Topology();
        topology.addSource("source", new StringDeserializer(), new StringDeserializer(), INPUT);
        topology.addProcessor("throws-on-boom", ThrowsOnBoom::new, "source");
        topology.addSink("sink", OUTPUT, new StringSerializer(), new StringSerializer(), "throws-on-boom");

        try (TopologyTestDriver driver = new TopologyTestDriver(topology, properties, START)) {
            TestInputTopic<String, String> input =
                    driver.createInputTopic(INPUT, new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, String> passed =
                    driver.createOutputTopic(OUTPUT, new StringDeserializer(), new StringDeserializer());
            TestOutputTopic<String, String> dlq =
                    driver.createOutputTopic("errors", new StringDeserializer(), new StringDeserializer());
            RecordHeaders headers = new RecordHeaders();
            headers.add("trace", "t-1".getBytes(StandardCharsets.UTF_8));

            input.pipeInput("k0", "before");
            input.pipeInput(new TestRecord<>("k1", "boom", headers, START.plusSeconds(1)));
            input.pipeInput("k2", "after");

            assertThat(passed.readValuesToList()).containsExactly("before", "after");
            List<TestRecord<String, String>> dead = dlq.readRecordsToList();
            assertThat(dead).singleElement().satisfies(letter -> {
                assertThat(letter.key()).isEqualTo("k1");
                assertThat(letter.value()).isEqualTo("boom");
                assertThat(letter.getRecordTime()).isEqualTo(START.plusSeconds(1));
                assertThat(header(letter, "trace")).isEqualTo("t-1");
                assertThat(header(letter, DeadLetters.SOURCE_TOPIC_HEADER)).isEqualTo(INPUT);
                assertThat(header(letter, DeadLetters.SOURCE_PARTITION_HEADER)).isEqualTo("0");
                assertThat(header(letter, DeadLetters.SOURCE_OFFSET_HEADER)).isEqualTo("1");
                assertThat(header(letter, DeadLetters.ERROR_HEADER)).isEqualTo("a bug met boom");
                assertThat(header(letter, DeadLetters.ERROR_CLASS_HEADER))
                        .isEqualTo(IllegalStateException.class.getName());
                assertThat(header(letter, DeadLetters.TRUNCATED_HEADER)).isNull();
            });
            assertThat(registry.get(TtlMetrics.meterName(TtlMetrics.DEAD_LETTERED))
                            .tag(TtlMetrics.TASK_TAG, "0_0")
                            .counter()
                            .count())
                    .isEqualTo(1.0);
        }
    }
}
