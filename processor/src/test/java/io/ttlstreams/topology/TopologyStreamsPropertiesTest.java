package io.ttlstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.processor.ProcessingFailureHandler;
import io.ttlstreams.processor.SendFailureHandler;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class TopologyStreamsPropertiesTest {

    private static TtlStreamsConfig config(Map<String, String> extra) {
        return TestConfigs.config(extra);
    }

    @Test
    void shouldAddTheDeadLetteringHandlersWhenTheTopologyRuns() {
        TtlStreamsConfig config = config(Map.of("bootstrap.servers", "broker:9092"));

        Properties streams = TtlTopology.streamsProperties(config);

        Properties expected = config.streamsProperties();
        expected.put("processing.exception.handler", ProcessingFailureHandler.class.getName());
        expected.put("production.exception.handler", SendFailureHandler.class.getName());
        expected.put("errors.dead.letter.queue.topic.name", "ttl.dlq");
        assertThat(streams).containsExactlyInAnyOrderEntriesOf(expected);
    }

    @Test
    void shouldPassTheDeadLetterTopicToTheExceptionHandlers() {
        assertThat(TtlTopology.streamsProperties(config(Map.of("ttl.dlq.topic", "errors"))))
                .containsEntry(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, "errors");
    }

    @Test
    void shouldKeepTheUsersOwnHandlersWhenTheyAreConfigured() {
        Properties streams = TtlTopology.streamsProperties(config(Map.of(
                "processing.exception.handler", "com.example.OwnProcessingHandler",
                "production.exception.handler", "com.example.OwnProductionHandler")));

        assertThat(streams)
                .containsEntry("processing.exception.handler", "com.example.OwnProcessingHandler")
                .containsEntry("production.exception.handler", "com.example.OwnProductionHandler");
    }
}
