package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The processor's client security, checked at start-up and said without a secret. */
class KafkaClientSecurityTest {

    private static final String SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required"
            + " username=\"ttl-processor\" password=\"S3cret-pw\";";

    @Test
    void shouldSayWhichUserTheClientsLogInAsWhenConfiguredForScram() {
        KafkaClientSecurity security = KafkaClientSecurity.of(config(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", SCRAM_JAAS));

        assertThat(security.user()).contains("ttl-processor");
        assertThat(security.principal()).contains("User:ttl-processor");
        assertThat(security.describe())
                .isEqualTo("SASL_SSL, SCRAM-SHA-512, as User:ttl-processor")
                .doesNotContain("S3cret");
    }

    @Test
    void shouldSayThereIsNoAuthenticationWhenNothingIsConfigured() {
        KafkaClientSecurity security = KafkaClientSecurity.of(config());

        assertThat(security.user()).isEmpty();
        assertThat(security.describe()).isEqualTo("PLAINTEXT (no authentication, no encryption)");
    }

    @Test
    void shouldRefuseASaslProtocolWithoutCredentialsNamingTheOption() {
        assertThatThrownBy(() -> KafkaClientSecurity.of(config("security.protocol", "SASL_SSL")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.protocol is SASL_SSL")
                .hasMessageContaining("sasl.jaas.config is not set");
    }

    @Test
    void shouldRefuseCredentialsThatThePlaintextProtocolWouldNeverSend() {
        assertThatThrownBy(() -> KafkaClientSecurity.of(config("sasl.jaas.config", SCRAM_JAAS)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sasl.jaas.config is set but security.protocol is PLAINTEXT")
                .hasMessageNotContaining("S3cret");
    }

    @Test
    void shouldRefuseAJaasLineWithoutAUserForScramWithoutQuotingIt() {
        assertThatThrownBy(() -> KafkaClientSecurity.of(config(
                        "security.protocol",
                        "SASL_PLAINTEXT",
                        "sasl.mechanism",
                        "SCRAM-SHA-256",
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required password=\"S3cret\";")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sasl.jaas.config names no username")
                .hasMessageNotContaining("S3cret");
        assertThatThrownBy(() -> KafkaClientSecurity.of(config(
                        "security.protocol",
                        "SASL_PLAINTEXT",
                        "sasl.jaas.config",
                        "ScramLoginModule username=\"u\" password=\"S3cret\"")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sasl.jaas.config is not a JAAS configuration")
                .hasMessageNotContaining("S3cret");
    }

    @Test
    void shouldRefuseAnUnknownProtocolAndAMissingTruststoreNamingTheOption(@TempDir Path dir) throws IOException {
        assertThatThrownBy(() -> KafkaClientSecurity.of(config("security.protocol", "TLS")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.protocol");
        assertThatThrownBy(() -> KafkaClientSecurity.of(config(
                        "security.protocol",
                        "SSL",
                        "ssl.truststore.location",
                        dir.resolve("missing.p12").toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ssl.truststore.location")
                .hasMessageContaining("no readable file");
        Path truststore = Files.writeString(dir.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\n");
        assertThat(KafkaClientSecurity.of(config(
                                "security.protocol", "SSL",
                                "ssl.truststore.type", "PEM",
                                "ssl.truststore.location", truststore.toString()))
                        .describe())
                .startsWith("SSL");
    }

    @Test
    void shouldReadTheJaasLineThroughAConfigProvider(@TempDir Path dir) throws IOException {
        Path secret =
                Files.writeString(dir.resolve("kafka.properties"), "jaas=" + SCRAM_JAAS.replace("\"", "\\\"") + "\n");
        KafkaClientSecurity security = KafkaClientSecurity.of(TestConfigs.configReadingFiles(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "${file:" + secret + ":jaas}"));

        assertThat(security.principal()).contains("User:ttl-processor");
    }
}
