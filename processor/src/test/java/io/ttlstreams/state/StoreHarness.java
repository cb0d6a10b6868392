package io.ttlstreams.state;

import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Real, initialized state stores for unit tests: a TopologyTestDriver over a topology that only holds the stores, so
 * that tests exercise the stores exactly as built (RocksDB, changelogging) without a broker.
 */
final class StoreHarness implements AutoCloseable {

    private final TopologyTestDriver driver;

    StoreHarness(Path stateDir, StoreBuilder<?>... stores) {
        Topology topology = new Topology();
        topology.addSource(
                "source", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
        topology.addProcessor("holder", NoOp::new, "source");
        for (StoreBuilder<?> store : stores) {
            topology.addStateStore(store, "holder");
        }
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "store-harness");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver = new TopologyTestDriver(topology, props);
    }

    <K, V> KeyValueStore<K, V> store(String name) {
        return driver.getKeyValueStore(name);
    }

    @Override
    public void close() {
        driver.close();
    }

    private static final class NoOp implements Processor<String, String, Void, Void> {
        @Override
        public void process(Record<String, String> record) {
            // The topology exists only to host the stores.
        }
    }
}
