package io.ttlstreams.bench;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.topology.TtlTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Figure 3: scheduling throughput of the ttl-streams topology against a pass-through topology that only
 * parses each change event with the same {@link ChangeEventParser} and writes it out. Both run in a
 * TopologyTestDriver: no broker, no network, no exactly-once transactions, one record at a time.
 */
final class ThroughputBench {

    static final String TTL_STREAMS = "ttl-streams";
    static final String PASS_THROUGH = "pass-through";

    /** One topology's rate over {@code events} events (median of its runs). */
    record Row(String topology, int events, int runs, double[] eventsPerSecond) {
        double median() {
            return Stats.median(eventsPerSecond);
        }
    }

    final List<Row> rows = new ArrayList<>();

    private final int events;
    private final int warmupEvents;
    private final int runs;
    private final TtlStreamsConfig config = BenchSupport.config(Map.of());

    ThroughputBench(int events, int warmupEvents, int runs) {
        this.events = events;
        this.warmupEvents = warmupEvents;
        this.runs = runs;
    }

    void run() {
        List<TestRecord<String, String>> workload = workload(events);
        List<TestRecord<String, String>> warmup = workload(warmupEvents);
        double[] ttl = new double[runs];
        double[] pass = new double[runs];
        pipe(TtlTopology.build(config), warmup);
        pipe(passThrough(), warmup);
        for (int r = 0; r < runs; r++) {
            // Alternated, so that drift in the machine's load hits both alike.
            ttl[r] = pipe(TtlTopology.build(config), workload);
            pass[r] = pipe(passThrough(), workload);
        }
        rows.add(new Row(TTL_STREAMS, events, runs, ttl));
        rows.add(new Row(PASS_THROUGH, events, runs, pass));
    }

    double ratio() {
        return rows.get(0).median() / rows.get(1).median();
    }

    /** Four inserts of new documents, then an update that reschedules a recent one; expiries an hour out. */
    private static List<TestRecord<String, String>> workload(int count) {
        ChangeEventFactory factory = new ChangeEventFactory(BenchSupport.NAMESPACE);
        List<TestRecord<String, String>> records = new ArrayList<>(count);
        long nextId = 0;
        for (int i = 0; i < count; i++) {
            Instant wallTime = BenchSupport.START.plusMillis(i / 10);
            boolean update = i % 5 == 4;
            long id = update ? nextId - 2 : nextId++;
            String value = factory.write(
                    update ? "update" : "insert",
                    id,
                    wallTime,
                    wallTime.plus(Duration.ofHours(1)).plusSeconds(update ? 60 : 0));
            records.add(new TestRecord<>(BenchSupport.keyJson(id), value, wallTime));
        }
        return records;
    }

    /** Events per second through {@code topology}, in a fresh driver. */
    private double pipe(Topology topology, List<TestRecord<String, String>> records) {
        Path dir = BenchSupport.tempStateDir("ttl-bench-tput");
        try (TopologyTestDriver driver =
                new TopologyTestDriver(topology, BenchSupport.streamsProperties(config, dir), BenchSupport.START)) {
            TestInputTopic<String, String> input = driver.createInputTopic(
                    config.sourceTopics().get(0), new StringSerializer(), new StringSerializer());
            long start = System.nanoTime();
            for (TestRecord<String, String> record : records) {
                input.pipeInput(record);
            }
            long elapsed = System.nanoTime() - start;
            return records.size() / (elapsed / 1e9);
        } finally {
            BenchSupport.deleteRecursively(dir);
        }
    }

    /** Parse with the engine's parser, write the raw event out keyed by namespace; drop what does not parse. */
    private Topology passThrough() {
        ChangeEventParser parser = new ChangeEventParser(config.topicNamespaceMapping());
        Topology topology = new Topology();
        topology.addSource(
                "source",
                new StringDeserializer(),
                new StringDeserializer(),
                config.sourceTopics().toArray(String[]::new));
        topology.addProcessor("parse", () -> new PassThrough(parser), "source");
        topology.addSink("sink", "pass-through-out", new StringSerializer(), new StringSerializer(), "parse");
        return topology;
    }

    /** Forwards each parsable event unchanged. */
    static final class PassThrough implements Processor<String, String, String, String> {
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
            String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
            try {
                parser.parse(topic, record.key(), record.value(), record.timestamp());
            } catch (RuntimeException e) {
                return;
            }
            context.forward(record);
        }
    }
}
