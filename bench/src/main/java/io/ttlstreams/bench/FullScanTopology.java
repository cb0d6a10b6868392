package io.ttlstreams.bench;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.ChangeEventParser;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.bson.BsonValue;

/**
 * The baseline: the TTL punctuator of the common Kafka Streams tutorials. One store of id to deadline, one put per
 * event; every punctuation scans {@code store.all()} and deletes what is due, so its cost grows with the whole
 * schedule. Two inputs: deadlines as such (figure 1, {@link #build(Duration)}), or the change events of the broker
 * figures, parsed by the engine's own parser ({@link #build(TtlStreamsConfig, String, Duration)}, the per-event
 * anchor of {@link EventCostBench}).
 */
final class FullScanTopology {

    static final String STORE = "ttl-deadlines";
    static final String INPUT = "ttl-input";
    static final String OUTPUT = "ttl-expired";

    private FullScanTopology() {}

    /** Reads {@link #INPUT}: key the document's id, value its deadline in epoch millis as text. */
    static Topology build(Duration interval) {
        return build(
                List.of(INPUT),
                OUTPUT,
                interval,
                (topic, record) -> KeyValue.pair(record.key(), Long.parseLong(record.value())));
    }

    /**
     * Reads {@code config}'s source topics, parses each change event with the same {@link ChangeEventParser} as the
     * pass-through, and puts its document's id (namespace, NUL, the record's key: the document key's JSON) with the
     * date of the benchmarks' rule field as its deadline; drops what does not parse or holds no such date (the
     * workloads hold none).
     */
    static Topology build(TtlStreamsConfig config, String outputTopic, Duration interval) {
        ChangeEventParser parser = ChangeEventParser.forConfig(config);
        return build(config.sourceTopics(), outputTopic, interval, (topic, record) -> {
            ChangeEvent event;
            try {
                event = parser.parse(topic, record.key(), record.value(), record.timestamp());
            } catch (RuntimeException e) {
                return null;
            }
            BsonValue deadline =
                    event.fullDocument() == null ? null : event.fullDocument().get(BenchSupport.FIELD);
            return deadline == null || !deadline.isDateTime()
                    ? null
                    : KeyValue.pair(
                            event.namespace().toString() + '\0' + record.key(),
                            deadline.asDateTime().getValue());
        });
    }

    private static Topology build(List<String> inputs, String output, Duration interval, Deadlines deadlines) {
        Topology topology = new Topology();
        topology.addSource("source", new StringDeserializer(), new StringDeserializer(), inputs.toArray(String[]::new));
        topology.addProcessor("full-scan-ttl", () -> new FullScanProcessor(interval, deadlines), "source");
        // Same store flavour as ttl-streams: persistent RocksDB, changelogged, no cache.
        topology.addStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.String(), Serdes.Long())
                        .withCachingDisabled(),
                "full-scan-ttl");
        topology.addSink("sink", output, new StringSerializer(), new StringSerializer(), "full-scan-ttl");
        return topology;
    }

    /** What an input record puts: a document's id and deadline (epoch millis), or null for nothing. */
    @FunctionalInterface
    interface Deadlines {
        KeyValue<String, Long> of(String topic, Record<String, String> record);
    }

    /** Records the deadline of each id; the punctuator expires them. */
    static final class FullScanProcessor implements Processor<String, String, String, String> {

        private final Duration interval;
        private final Deadlines deadlines;
        private ProcessorContext<String, String> context;
        private KeyValueStore<String, Long> store;

        FullScanProcessor(Duration interval, Deadlines deadlines) {
            this.interval = interval;
            this.deadlines = deadlines;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.store = context.getStateStore(STORE);
            context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, this::expireDue);
        }

        @Override
        public void process(Record<String, String> record) {
            String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
            KeyValue<String, Long> deadline = deadlines.of(topic, record);
            if (deadline != null) {
                store.put(deadline.key, deadline.value);
            }
        }

        private void expireDue(long now) {
            try (KeyValueIterator<String, Long> all = store.all()) {
                while (all.hasNext()) {
                    KeyValue<String, Long> entry = all.next();
                    if (entry.value <= now) {
                        context.forward(new Record<>(entry.key, Long.toString(entry.value), now));
                        store.delete(entry.key);
                    }
                }
            }
        }
    }
}
