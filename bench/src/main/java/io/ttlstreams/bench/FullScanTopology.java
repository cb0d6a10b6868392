package io.ttlstreams.bench;

import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The baseline: the TTL punctuator of the common Kafka Streams tutorials. One store of id to deadline; every
 * punctuation scans {@code store.all()} and deletes what is due, so its cost grows with the whole schedule.
 */
final class FullScanTopology {

    static final String STORE = "ttl-deadlines";
    static final String INPUT = "ttl-input";
    static final String OUTPUT = "ttl-expired";

    private FullScanTopology() {}

    static Topology build(Duration interval) {
        Topology topology = new Topology();
        topology.addSource("source", new StringDeserializer(), new StringDeserializer(), INPUT);
        topology.addProcessor("full-scan-ttl", () -> new FullScanProcessor(interval), "source");
        // Same store flavour as ttl-streams: persistent RocksDB, changelogged, no cache.
        topology.addStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.String(), Serdes.Long())
                        .withCachingDisabled(),
                "full-scan-ttl");
        topology.addSink("sink", OUTPUT, new StringSerializer(), new StringSerializer(), "full-scan-ttl");
        return topology;
    }

    /** Records the deadline (value, epoch millis as text) of each id; the punctuator expires them. */
    static final class FullScanProcessor implements Processor<String, String, String, String> {

        private final Duration interval;
        private ProcessorContext<String, String> context;
        private KeyValueStore<String, Long> store;

        FullScanProcessor(Duration interval) {
            this.interval = interval;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.store = context.getStateStore(STORE);
            context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, this::expireDue);
        }

        @Override
        public void process(Record<String, String> record) {
            store.put(record.key(), Long.parseLong(record.value()));
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
