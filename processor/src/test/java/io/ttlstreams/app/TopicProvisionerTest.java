package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeConfigsResult;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

/** Start-up creates missing topics with the plan's settings, or, with ttl.topics.create=false, only checks them. */
class TopicProvisionerTest {

    /** A broker's topics: name to partitions and configs; what the provisioner asks for, answered from them. */
    private static final class Topics {
        final Map<String, Integer> partitions = new LinkedHashMap<>();
        final Map<String, Map<String, String>> configs = new LinkedHashMap<>();
        final List<NewTopic> created = new ArrayList<>();
        /** Set when the broker went away: every description times out, as the admin client reports it. */
        boolean gone;

        Topics with(String name, int count, String... settings) {
            partitions.put(name, count);
            Map<String, String> config = new LinkedHashMap<>(
                    Map.of("cleanup.policy", "delete", "retention.ms", "604800000", "max.message.bytes", "1048588"));
            for (int i = 0; i < settings.length; i += 2) {
                config.put(settings[i], settings[i + 1]);
            }
            configs.put(name, config);
            return this;
        }

        /** The example's topics as `platform --format kafka-cli` declares them, with {@code count} partitions. */
        Topics declared(int count) {
            return with("mongo.app.sessions", count)
                    .with("ttl.control", count)
                    .with("ttl.deletes", count)
                    .with("ttl.dlq", 1)
                    .with("ttl.sink.dlq", 1);
        }

        @SuppressWarnings("unchecked")
        Admin admin() {
            return (Admin) Proxy.newProxyInstance(
                    Admin.class.getClassLoader(),
                    new Class<?>[] {Admin.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "describeTopics" -> describeTopics((Collection<String>) args[0]);
                        case "describeConfigs" -> describeConfigs((Collection<ConfigResource>) args[0]);
                        case "createTopics" -> createTopics((Collection<NewTopic>) args[0]);
                        case "close" -> null;
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        private DescribeTopicsResult describeTopics(Collection<String> names) {
            Map<String, KafkaFuture<TopicDescription>> futures = new LinkedHashMap<>();
            for (String name : names) {
                Integer count = partitions.get(name);
                futures.put(
                        name,
                        gone
                                ? failed(new org.apache.kafka.common.errors.TimeoutException(
                                        "Timed out waiting for a node assignment. Call: describeTopics"))
                                : count == null
                                        ? failed(new UnknownTopicOrPartitionException(name))
                                        : KafkaFuture.completedFuture(new TopicDescription(
                                                name,
                                                false,
                                                IntStream.range(0, count)
                                                        .mapToObj(p ->
                                                                new TopicPartitionInfo(p, null, List.of(), List.of()))
                                                        .toList())));
            }
            return new DescribeTopicsResult(null, futures) {};
        }

        private DescribeConfigsResult describeConfigs(Collection<ConfigResource> resources) {
            Map<ConfigResource, KafkaFuture<Config>> futures = new LinkedHashMap<>();
            for (ConfigResource resource : resources) {
                futures.put(
                        resource,
                        KafkaFuture.completedFuture(new Config(configs.get(resource.name()).entrySet().stream()
                                .map(entry -> new ConfigEntry(entry.getKey(), entry.getValue()))
                                .toList())));
            }
            return new DescribeConfigsResult(futures) {};
        }

        private CreateTopicsResult createTopics(Collection<NewTopic> topics) {
            created.addAll(topics);
            for (NewTopic topic : topics) {
                with(topic.name(), topic.numPartitions() > 0 ? topic.numPartitions() : 1);
                configs.get(topic.name()).putAll(topic.configs());
            }
            return new CreateTopicsResult(Map.of()) {};
        }

        private static <T> KafkaFuture<T> failed(Throwable cause) {
            KafkaFutureImpl<T> future = new KafkaFutureImpl<>();
            future.completeExceptionally(cause);
            return future;
        }
    }

    private static TtlStreamsConfig config(boolean create) {
        return TestConfigs.config("ttl.source.topic.prefix", "mongo", "ttl.topics.create", Boolean.toString(create));
    }

    @Test
    void shouldAcceptTopicsDeclaredAsThePlatformRendersThemWhenCreationIsOff() throws Exception {
        Topics topics = new Topics().declared(3);

        assertThat(new TopicProvisioner(topics.admin()).provision(config(false)))
                .isEqualTo(3);
        assertThat(topics.created).isEmpty();
    }

    @Test
    void shouldStopNamingTheControlTopicWhenItIsMissingAndCreationIsOff() {
        Topics topics = new Topics().declared(3);
        topics.partitions.remove("ttl.control");

        assertThatThrownBy(() -> new TopicProvisioner(topics.admin()).provision(config(false)))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("topic ttl.control: expected to exist")
                .hasMessageContaining("actual: missing");
        assertThat(topics.created).isEmpty();
    }

    @Test
    void shouldStopWithOneLinePerProblemWhenDeclaredTopicsAreMisconfiguredAndCreationIsOff() {
        Topics topics = new Topics()
                .declared(3)
                .with("ttl.control", 1)
                .with("ttl.deletes", 3, "cleanup.policy", "compact")
                .with("ttl.dlq", 1, "max.message.bytes", "1000");

        assertThatThrownBy(() -> new TopicProvisioner(topics.admin()).provision(config(false)))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(e.getMessage().lines().toList())
                        .hasSize(3)
                        .anySatisfy(line -> assertThat(line)
                                .startsWith("topic ttl.control: partitions expected at least 3, actual 1"))
                        .anySatisfy(line -> assertThat(line)
                                .startsWith("topic ttl.deletes: cleanup.policy expected delete, actual compact"))
                        .anySatisfy(line -> assertThat(line)
                                .startsWith(
                                        "topic ttl.dlq: max.message.bytes expected at least 1048576, actual 1000")));
    }

    @Test
    void shouldCreateMissingTopicsWithThePlansSettingsWhenCreationIsOn() throws Exception {
        Topics topics = new Topics().with("mongo.app.sessions", 4);

        assertThat(new TopicProvisioner(topics.admin()).provision(config(true))).isEqualTo(4);

        Map<String, NewTopic> created = new LinkedHashMap<>();
        topics.created.forEach(topic -> created.put(topic.name(), topic));
        // ttl.sink.dlq too: the processor counts the sink's refusals from it, so Kafka Streams needs it to start.
        assertThat(created.keySet()).containsExactly("ttl.control", "ttl.deletes", "ttl.dlq", "ttl.sink.dlq");
        assertThat(created.get("ttl.control").numPartitions()).isEqualTo(4);
        assertThat(created.get("ttl.deletes").configs())
                .containsEntry("cleanup.policy", "delete")
                .containsEntry("retention.ms", "604800000");
        assertThat(created.get("ttl.dlq").configs()).containsEntry("max.message.bytes", "1048576");
    }

    @Test
    void shouldRefuseACompactedDeleteTopicEvenWhenCreationIsOn() {
        Topics topics = new Topics().declared(2).with("ttl.deletes", 2, "cleanup.policy", "compact");

        assertThatThrownBy(() -> new TopicProvisioner(topics.admin()).provision(config(true)))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("topic ttl.deletes: cleanup.policy expected delete, actual compact");
    }

    @Test
    void shouldStopWithOneLineNamingBootstrapServersWhenKafkaWentAwayAfterTheProbe() {
        Topics topics = new Topics().declared(2);
        topics.gone = true;
        TtlStreamsConfig config =
                TestConfigs.config("ttl.source.topic.prefix", "mongo", "bootstrap.servers", "kafka-0:9092");

        // run prints a ConfigException as its one line and exits 2, as for KafkaProbe's.
        assertThatThrownBy(() -> new TopicProvisioner(topics.admin()).provision(config))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("kafka-0:9092")
                .hasMessageContaining("bootstrap.servers")
                .hasMessageContaining("provisioning the topics failed: cannot describe topic mongo.app.sessions")
                .hasMessageContaining("Timed out waiting for a node assignment")
                .satisfies(e -> assertThat(e.getMessage().lines()).hasSize(1));
        assertThat(topics.created).isEmpty();
    }
}
