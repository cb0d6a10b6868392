package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The multi-broker embedded cluster: three brokers beside three controllers, topics replicated three times with
 * {@code min.insync.replicas=2}, surviving the hard loss of a partition leader and of the active controller.
 */
@Tag("integration")
class EmbeddedKafkaClusterIT {

    private static final String TOPIC = "replicated";

    @Test
    void shouldKeepAcceptingWritesWhenTheLeaderAndTheActiveControllerAreLostAndComeBack(@TempDir Path dir)
            throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, 1, KafkaSecurity.NONE, 3);
                Admin admin = kafka.setupAdmin()) {
            assertThat(kafka.brokerIds()).containsExactly(1, 2, 3);
            assertThat(kafka.controllerIds()).hasSize(EmbeddedKafka.CONTROLLERS);
            assertThat(kafka.bootstrapServers().split(",")).hasSize(3);
            kafka.createTopics(1, TOPIC);

            // createTopics returns once the controller has the topic; the broker the admin asks may learn of it later.
            TopicDescription topic = await("the topic described by the broker the admin asks")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> describe(admin), Objects::nonNull);
            assertThat(topic.partitions().get(0).replicas()).hasSize(3);
            Config config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC)))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .values()
                    .iterator()
                    .next();
            assertThat(config.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG).value())
                    .as("min.insync.replicas as the production topic plan renders it for three replicas")
                    .isEqualTo("2");

            try (KafkaProducer<String, String> producer = producer(kafka)) {
                send(producer, "before");
                int leader = topic.partitions().get(0).leader().id();
                kafka.killBroker(leader);
                await("a new leader once the hard-stopped broker's session expired")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> {
                            var current = describe(admin).partitions().get(0).leader();
                            return current != null && current.id() != leader;
                        });
                send(producer, "without the old leader");

                int active = kafka.activeController();
                assertThat(kafka.controllerIds()).contains(active);
                kafka.killController(active);
                await("the two remaining controllers elect a new active controller")
                        .atMost(Duration.ofSeconds(60))
                        .ignoreExceptions()
                        .until(() -> kafka.activeController() != active);
                kafka.createTopics(1, "created-without-the-old-controller");
                send(producer, "without the old controller");

                kafka.startController(active);
                kafka.startBroker(leader);
                await("the restarted broker back in sync")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> describe(admin).partitions().get(0).isr().size() == 3);
                send(producer, "all back");

                kafka.killBroker(1);
                assertThat(kafka.controllerIds())
                        .as("the set-up's admin client reaches the cluster without the first broker")
                        .contains(kafka.activeController());
                kafka.startBroker(1);
            }
        }
    }

    @Test
    void shouldRefuseLosingTheOnlyNodeAndSecurityOnSeveralBrokers(@TempDir Path dir) {
        assertThatThrownBy(() -> EmbeddedKafka.start(dir, 0, 1, KafkaSecurity.SCRAM_ACLS, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one broker only");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
            assertThat(kafka.replicationFactor()).isEqualTo(1);
            assertThatThrownBy(() -> kafka.killBroker(1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot lose it");
        }
        assertThatThrownBy(() -> EmbeddedKafka.start(dir, 0, 1, KafkaSecurity.NONE, 3))
                .isInstanceOf(EmbeddedStackException.class)
                .hasMessageContaining("formatted for 1 broker(s), not 3");
    }

    private static TopicDescription describe(Admin admin) throws Exception {
        return admin.describeTopics(List.of(TOPIC))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(TOPIC);
    }

    private static KafkaProducer<String, String> producer(EmbeddedKafka kafka) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** Acknowledged by at least min.insync.replicas replicas. */
    private static void send(KafkaProducer<String, String> producer, String value) throws Exception {
        assertThat(producer.send(new ProducerRecord<>(TOPIC, value))
                        .get(60, TimeUnit.SECONDS)
                        .hasOffset())
                .isTrue();
    }
}
