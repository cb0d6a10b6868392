package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.ConfigReference;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.embedded.standin.ServerVersion;
import io.ttlstreams.embedded.standin.StandInSettings;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The embedded stack's options, which this module adds to the processor's configuration. */
class EmbeddedOptionsTest {

    private static TtlStreamsConfig config(String... keyValues) {
        return TestConfigs.config(keyValues);
    }

    @Test
    void shouldDefaultToTheUsualPortsWhenNoneIsSet() {
        TtlStreamsConfig config = config();

        assertThat(EmbeddedOptions.mongodbPort(config)).isEqualTo(27017);
        assertThat(EmbeddedOptions.kafkaPort(config)).isEqualTo(9092);
        assertThat(EmbeddedOptions.connectPort(config)).isEqualTo(8083);
        assertThat(EmbeddedOptions.dataDir(config)).isEmpty();
        assertThat(EmbeddedOptions.partitions(config)).isEqualTo(2);
        assertThat(EmbeddedOptions.standIn(config)).isEqualTo(StandInSettings.DEFAULTS);
    }

    @Test
    void shouldReadEveryOptionWhenSet() {
        TtlStreamsConfig config = config(
                "embedded.mongodb.port", "0",
                "embedded.kafka.port", "19092",
                "embedded.connect.port", "18083",
                "embedded.data.dir", "/tmp/stack",
                "embedded.partitions", "4",
                "embedded.mongodb.version", "5.0",
                "embedded.mongodb.cursor.timeout.ms", "1000",
                "embedded.mongodb.clock.offset.ms", "-60000");

        assertThat(EmbeddedOptions.mongodbPort(config)).isZero();
        assertThat(EmbeddedOptions.kafkaPort(config)).isEqualTo(19092);
        assertThat(EmbeddedOptions.connectPort(config)).isEqualTo(18083);
        assertThat(EmbeddedOptions.dataDir(config)).contains(Path.of("/tmp/stack"));
        assertThat(EmbeddedOptions.partitions(config)).isEqualTo(4);
        assertThat(EmbeddedOptions.standIn(config))
                .isEqualTo(new StandInSettings(ServerVersion.V5_0, Duration.ofSeconds(1), Duration.ofMinutes(-1)));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "embedded.mongodb.port | 65536",
                "embedded.kafka.port   | -1",
                "embedded.connect.port | http",
                "embedded.partitions   | 0",
                "embedded.kafka.brokers | 0",
                "embedded.kafka.brokers | 10",
                "embedded.mongodb.version | 4.4",
                "embedded.mongodb.version | 7",
                "embedded.mongodb.cursor.timeout.ms | 0",
                "embedded.mongodb.clock.offset.ms | 31536000001",
            })
    void shouldRejectABadValueNamingTheOption(String option, String value) {
        assertThatThrownBy(() -> config(option, value))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(option);
    }

    @Test
    void shouldSuggestTheOptionWhenAnEmbeddedKeyIsMisspelled() {
        assertThatThrownBy(() -> config("embedded.mongo.port", "1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Unknown configuration embedded.mongo.port: ")
                .hasMessageContaining("did you mean embedded.mongodb.port?");
    }

    @Test
    void shouldDocumentTheEmbeddedStackBetweenKafkaConnectAndFailureHandling() {
        String reference = ConfigReference.everyOption();

        assertThat(reference)
                .containsSubsequence(
                        "### Kafka Connect",
                        "### Embedded local stack",
                        "| `embedded.mongodb.port` | int | `27017` | [0,...,65535] | low |",
                        "| `embedded.partitions` | int | `2` | [1,...,1000] | low |",
                        "### Failure handling");
    }

    @Test
    void shouldRefuseSeveralBrokersWithSecurityNamingBothOptionsWhenTheStackStarts() {
        TtlStreamsConfig config = config(
                "embedded.kafka.brokers", "3",
                "embedded.kafka.security", "scram-acls",
                "embedded.mongodb.port", "0",
                "embedded.kafka.port", "0",
                "embedded.connect.port", "0");

        assertThat(EmbeddedOptions.kafkaBrokers(config)).isEqualTo(3);
        assertThatThrownBy(() -> EmbeddedPipeline.start(config))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("embedded.kafka.brokers")
                .hasMessageContaining("embedded.kafka.security=scram-acls");
    }
}
