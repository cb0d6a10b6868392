package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TtlStreamsConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FullScanTopologyTest {

    private static final Instant EXPIRE_AT = BenchSupport.START.plus(Duration.ofDays(30));

    @Test
    void shouldPutEachChangeEventsDeadlineUnderItsDocumentWhenReadingChangeEvents(@TempDir Path dir) {
        TtlStreamsConfig config = BenchSupport.config(Map.of());
        try (TopologyTestDriver driver = new TopologyTestDriver(
                FullScanTopology.build(config, "out", Duration.ofDays(1)),
                BenchSupport.streamsProperties(config, dir),
                BenchSupport.START)) {
            TestInputTopic<String, String> source = driver.createInputTopic(
                    config.sourceTopics().get(0), new StringSerializer(), new StringSerializer());
            ChangeEventFactory events = new ChangeEventFactory(BenchSupport.NAMESPACE);
            source.pipeInput(BenchSupport.keyJson(1), events.write("insert", 1, 1, BenchSupport.START, EXPIRE_AT));
            source.pipeInput(
                    BenchSupport.keyJson(1),
                    events.write("update", 1, 2, BenchSupport.START, EXPIRE_AT.plusSeconds(1)));
            source.pipeInput(BenchSupport.keyJson(2), "not a change event");

            KeyValueStore<String, Long> store = driver.getKeyValueStore(FullScanTopology.STORE);
            try (KeyValueIterator<String, Long> all = store.all()) {
                assertThat(all)
                        .toIterable()
                        .containsExactly(KeyValue.pair(
                                BenchSupport.NAMESPACE + '\0' + BenchSupport.keyJson(1),
                                EXPIRE_AT.plusSeconds(1).toEpochMilli()));
            }
        }
    }
}
