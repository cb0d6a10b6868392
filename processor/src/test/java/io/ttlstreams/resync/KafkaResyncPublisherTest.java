package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.TtlStreamsConfig;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaResyncPublisherTest {

    private static final ResyncEvent EVENT = new ResyncEvent("app.tokens", "{\"_id\": \"t\"}", "{\"x\": 1}");

    @Test
    void shouldSendEachEventToItsTopicWithItsKey() {
        MockProducer<String, String> producer =
                new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        try (KafkaResyncPublisher publisher = new KafkaResyncPublisher(producer)) {
            publisher.publish(EVENT);
            publisher.flush();
        }

        assertThat(producer.history())
                .extracting(ProducerRecord::topic, ProducerRecord::key, ProducerRecord::value)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("app.tokens", "{\"_id\": \"t\"}", "{\"x\": 1}"));
        assertThat(producer.closed()).isTrue();
    }

    @Test
    void shouldFailTheFlushWhenAnEventWasNotAcknowledged() {
        MockProducer<String, String> producer =
                new MockProducer<>(false, null, new StringSerializer(), new StringSerializer());
        KafkaResyncPublisher publisher = new KafkaResyncPublisher(producer);
        publisher.publish(EVENT);
        producer.errorNext(new TimeoutException("no broker"));

        assertThatThrownBy(publisher::flush)
                .isInstanceOf(KafkaException.class)
                .hasMessageContaining("Could not publish resync events: no broker");
    }

    @Test
    void shouldProduceWithTheProcessorsClientSettingsAndAlwaysIdempotently() {
        TtlStreamsConfig config = new TtlStreamsConfig(Map.of(
                "ttl.rules", "s",
                "ttl.rule.s.namespace", "app.sessions",
                "ttl.rule.s.field", "expireAt",
                "bootstrap.servers", "kafka:9093",
                "security.protocol", "SASL_SSL",
                "producer.linger.ms", "20",
                "producer.enable.idempotence", "false",
                "num.stream.threads", "4"));

        Properties props = KafkaResyncPublisher.producerProperties(config);

        assertThat(props)
                .containsEntry("bootstrap.servers", "kafka:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry(ProducerConfig.LINGER_MS_CONFIG, "20")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true")
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "ttl-streams-resync")
                .doesNotContainKeys("num.stream.threads", "application.id", "processing.guarantee");
    }
}
