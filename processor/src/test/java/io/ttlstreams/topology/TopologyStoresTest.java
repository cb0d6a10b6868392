package io.ttlstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.state.ScheduleStores;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/** The scheduler's supplier declares its stores; the whole description is kept by {@link TopologyDescriptionTest}. */
class TopologyStoresTest {

    private static TopologyDescription description() {
        Map<String, String> props = new HashMap<>(TopologyFixture.sessionsSettings("ttl.audit.topic", "ttl.audit"));
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ttl-streams-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        return TtlTopology.build(new TtlStreamsConfig(props)).describe();
    }

    @Test
    void shouldAttachTheScheduleStoresToTheSchedulerOnlyWhenBuilt() {
        Map<String, Set<String>> storesByProcessor = description().subtopologies().stream()
                .flatMap(subtopology -> subtopology.nodes().stream())
                .filter(TopologyDescription.Processor.class::isInstance)
                .map(TopologyDescription.Processor.class::cast)
                .collect(Collectors.toMap(TopologyDescription.Node::name, TopologyDescription.Processor::stores));

        assertThat(storesByProcessor)
                .containsOnly(
                        Map.entry(
                                TtlTopology.SCHEDULER,
                                Set.of(
                                        ScheduleStores.SCHEDULE,
                                        ScheduleStores.INDEX,
                                        ScheduleStores.TASK,
                                        ScheduleStores.NAMESPACE_EPOCHS,
                                        ScheduleStores.RULE_VERSIONS,
                                        ScheduleStores.GUARD_STATE,
                                        ScheduleStores.UNSCHEDULED_NOTES)),
                        Map.entry(TtlTopology.PARSER, Set.of()),
                        Map.entry(TtlTopology.CONTROL_PARSER, Set.of()),
                        Map.entry(TtlTopology.SINK_DLQ_COUNTER, Set.of()));
    }
}
