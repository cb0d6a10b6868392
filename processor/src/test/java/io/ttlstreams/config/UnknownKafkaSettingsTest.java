package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class UnknownKafkaSettingsTest {

    private static TtlStreamsConfig configWith(Map<String, String> kafka) {
        Map<String, String> props = new java.util.HashMap<>(Map.of(
                "ttl.rules", "s",
                "ttl.rule.s.namespace", "app.sessions",
                "ttl.rule.s.field", "expireAt"));
        props.putAll(kafka);
        return new TtlStreamsConfig(props);
    }

    @Test
    void shouldWarnNamingTheClosestKnownSettingWhenAKafkaKeyIsMisspelt() {
        TtlStreamsConfig config = configWith(Map.of(
                "num.stream.thread", "2",
                "processing.garantee", "at_least_once",
                "consumer.max.pol.records", "5",
                "main.consumer.fetch.max.byte", "1"));

        assertThat(config.warnings())
                .containsExactlyInAnyOrder(
                        "Unknown Kafka setting num.stream.thread: neither Kafka Streams nor its consumer, producer or"
                                + " admin client defines it, so it has no effect unless a plug-in reads it; did you"
                                + " mean num.stream.threads?",
                        "Unknown Kafka setting processing.garantee: neither Kafka Streams nor its consumer, producer"
                                + " or admin client defines it, so it has no effect unless a plug-in reads it; did you"
                                + " mean processing.guarantee?",
                        "Unknown Kafka setting consumer.max.pol.records: neither Kafka Streams nor its consumer,"
                                + " producer or admin client defines it under consumer., so it has no effect unless a"
                                + " plug-in reads it; did you mean consumer.max.poll.records?",
                        "Unknown Kafka setting main.consumer.fetch.max.byte: neither Kafka Streams nor its consumer,"
                                + " producer or admin client defines it under main.consumer., so it has no effect"
                                + " unless a plug-in reads it; did you mean main.consumer.fetch.max.bytes?");
    }

    @Test
    void shouldNotWarnWhenEveryKafkaKeyIsKnownOrOpen() {
        TtlStreamsConfig config = configWith(Map.of(
                "num.stream.threads", "2",
                "bootstrap.servers", "kafka:9092",
                "consumer.max.poll.records", "5",
                "restore.consumer.fetch.max.bytes", "1000",
                "producer.linger.ms", "5",
                "admin.retries", "3",
                "sasl.jaas.config", "x",
                "topic.segment.bytes", "1000000",
                "config.providers", "env",
                "config.providers.env.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider"));

        assertThat(config.warnings()).isEmpty();
    }
}
