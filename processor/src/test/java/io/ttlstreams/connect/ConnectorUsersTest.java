package io.ttlstreams.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.TestConfigs;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * With {@code ttl.connect.kafka.users.dir}, each rendered connector logs in as its own Kafka user, from the user's
 * Secret mounted on the workers; without it, nothing of the kind is rendered.
 */
class ConnectorUsersTest {

    @Test
    void shouldRunEachConnectorAsItsOwnUserWhenTheWorkersHoldTheUsersSecrets() {
        ConnectorConfigs connectors = ConnectorConfigs.render(
                TestConfigs.config("ttl.connect.kafka.users.dir", "/mnt/kafka-users/"),
                ConnectorConfigs.DEFAULT_MONGODB_URI,
                false);

        assertThat(connectors.sources())
                .singleElement()
                .satisfies(source -> assertThat(source.config())
                        .containsEntry(
                                "producer.override.sasl.jaas.config",
                                "${directory:/mnt/kafka-users/ttl-source:sasl.jaas.config}")
                        .doesNotContainKeys("consumer.override.sasl.jaas.config", "admin.override.sasl.jaas.config"));
        assertThat(connectors.sink().config())
                .containsEntry(
                        "consumer.override.sasl.jaas.config", "${directory:/mnt/kafka-users/ttl-sink:sasl.jaas.config}")
                .containsEntry(
                        "producer.override.sasl.jaas.config", "${directory:/mnt/kafka-users/ttl-sink:sasl.jaas.config}")
                .containsEntry(
                        "admin.override.sasl.jaas.config", "${directory:/mnt/kafka-users/ttl-sink:sasl.jaas.config}");
    }

    @Test
    void shouldRenderNoLoginWhenTheConnectorsRunAsTheWorkers() {
        ConnectorConfigs connectors =
                ConnectorConfigs.render(TestConfigs.config(), ConnectorConfigs.DEFAULT_MONGODB_URI, false);

        assertThat(connectors.toJson()).doesNotContain("sasl.jaas.config");
    }

    @Test
    void shouldRefuseADirectoryThatIsNoAbsolutePathNamingTheOption() {
        assertThatThrownBy(() -> TestConfigs.config("ttl.connect.kafka.users.dir", "kafka-users"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.connect.kafka.users.dir")
                .hasMessageContaining("absolute path");
    }
}
