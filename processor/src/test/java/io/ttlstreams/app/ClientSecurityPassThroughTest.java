package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.resync.KafkaResyncPublisher;
import io.ttlstreams.topology.TtlTopology;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * The client settings of a secured cluster reach every Kafka client the processor makes: Kafka Streams' consumers,
 * producer and admin client, the start-up probe, resync's and approve's producer; a {@code producer.} override
 * reaches the producers only, as in Kafka Streams.
 */
class ClientSecurityPassThroughTest {

    private static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required"
            + " username=\"ttl-processor\" password=\"pw\";";

    private static final Map<String, String> SECURITY = Map.of(
            "security.protocol", "SASL_SSL",
            "sasl.mechanism", "SCRAM-SHA-512",
            "sasl.jaas.config", JAAS,
            "ssl.truststore.type", "PEM",
            "ssl.endpoint.identification.algorithm", "https");

    private static TtlStreamsConfig secured(String... more) {
        String[] keyValues = new String[SECURITY.size() * 2 + more.length];
        int i = 0;
        for (Map.Entry<String, String> setting : SECURITY.entrySet()) {
            keyValues[i++] = setting.getKey();
            keyValues[i++] = setting.getValue();
        }
        System.arraycopy(more, 0, keyValues, i, more.length);
        return TestConfigs.config(keyValues);
    }

    private static void assertSecured(Map<?, ?> client, String what) {
        SECURITY.forEach((key, value) -> assertThat(String.valueOf(client.get(key)))
                .as("%s of %s", key, what)
                .isEqualTo(value));
    }

    @Test
    void shouldReachEveryClientOfTheProcessorWhenTheClusterIsSecured() {
        TtlStreamsConfig config = secured("bootstrap.servers", "kafka:9093");
        StreamsConfig streams = new StreamsConfig(TtlTopology.streamsProperties(config));

        assertSecured(streams.getMainConsumerConfigs("g", "c", 0), "Kafka Streams' main consumer");
        assertSecured(streams.getRestoreConsumerConfigs("c"), "Kafka Streams' restore consumer");
        assertSecured(streams.getProducerConfigs("c"), "Kafka Streams' producer");
        assertSecured(streams.getAdminConfigs("c"), "Kafka Streams' and the operations surface's admin client");
        assertSecured(
                KafkaProbe.adminProperties(config.streamsProperties(), Duration.ofSeconds(5)),
                "the start-up probe and topic check");
        assertSecured(KafkaResyncPublisher.producerProperties(config), "resync's and approve's producer");
    }

    @Test
    void shouldLetAProducerOverrideReachTheProducersOnlyWhenOneIsSet() {
        String other = JAAS.replace("ttl-processor", "another");
        TtlStreamsConfig config = secured("bootstrap.servers", "kafka:9093", "producer.sasl.jaas.config", other);

        assertThat(String.valueOf(
                        KafkaResyncPublisher.producerProperties(config).get("sasl.jaas.config")))
                .contains("another");
        assertThat(String.valueOf(new StreamsConfig(TtlTopology.streamsProperties(config))
                        .getMainConsumerConfigs("g", "c", 0)
                        .get("sasl.jaas.config")))
                .contains("ttl-processor");
    }
}
