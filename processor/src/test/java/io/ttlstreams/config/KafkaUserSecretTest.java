package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.provider.DirectoryConfigProvider;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worked example of docs/deployment.md: a Strimzi KafkaUser's Secret mounted as a directory (one file per key,
 * {@code password} and {@code sasl.jaas.config}), read through Kafka's {@code DirectoryConfigProvider}, either the
 * Secret's JAAS line as it is or one built from its password.
 */
class KafkaUserSecretTest {

    private static Path mountedSecret(Path dir) throws IOException {
        Path secret = Files.createDirectories(dir.resolve("kafka-user"));
        Files.writeString(secret.resolve("password"), "Mounted-pw-1");
        Files.writeString(
                secret.resolve("sasl.jaas.config"),
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ttl-processor\""
                        + " password=\"Mounted-pw-1\";");
        return secret;
    }

    private static TtlStreamsConfig processor(String jaas) {
        Map<String, Object> props = TestConfigs.props(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "config.providers", "directory",
                "config.providers.directory.class", DirectoryConfigProvider.class.getName(),
                "sasl.jaas.config", jaas);
        return new TtlStreamsConfig(props);
    }

    @Test
    void shouldLogInAsTheSecretsUserWhenItsJaasLineIsReadAsItIs(@TempDir Path dir) throws IOException {
        Path secret = mountedSecret(dir);

        TtlStreamsConfig config = processor("${directory:" + secret + ":sasl.jaas.config}");

        assertThat(KafkaClientSecurity.of(config).describe())
                .isEqualTo("SASL_SSL, SCRAM-SHA-512, as User:ttl-processor");
    }

    @Test
    void shouldLogInAsTheSecretsUserWhenTheJaasLineIsBuiltFromItsPassword(@TempDir Path dir) throws IOException {
        Path secret = mountedSecret(dir);

        TtlStreamsConfig config = processor("org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"ttl-processor\" password=\"${directory:" + secret + ":password}\";");

        assertThat(KafkaClientSecurity.of(config).principal()).contains("User:ttl-processor");
        Object resolved = config.streamsProperties().get("sasl.jaas.config");
        String jaas = resolved instanceof Password password ? password.value() : String.valueOf(resolved);
        assertThat(jaas).contains("password=\"Mounted-pw-1\"");
    }
}
