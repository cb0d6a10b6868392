package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigLayersTest {

    @TempDir
    Path directory;

    private Path file(String... lines) throws IOException {
        return Files.writeString(directory.resolve("processor.properties"), String.join("\n", lines) + "\n");
    }

    @ParameterizedTest
    @CsvSource({
        "TTL_STREAMS_BOOTSTRAP_SERVERS, bootstrap.servers",
        "TTL_STREAMS_TTL_HTTP_PORT, ttl.http.port",
        "TTL_STREAMS_APPLICATION_SERVER, application.server",
        "TTL_STREAMS_TTL_RULE_SESSIONS_EXPIRE_AFTER_SECONDS, ttl.rule.sessions.expire.after.seconds",
        "TTL_STREAMS_TTL_RULE_USER___SESSIONS_FIELD, ttl.rule.user-sessions.field",
        "TTL_STREAMS_TTL_RULE_USER__SESSIONS_FIELD, ttl.rule.user_sessions.field",
        "TTL_STREAMS_CONSUMER_MAX_POLL_RECORDS, consumer.max.poll.records"
    })
    void shouldNameTheKeyAsConfluentImagesDo(String variable, String key) {
        assertThat(ConfigLayers.keyOf(variable)).isEqualTo(key);
        assertThat(TestConfigs.variableOf(key)).isEqualTo(variable);
    }

    @ParameterizedTest
    @CsvSource({"TTL_STREAMS_", "TTL_STREAMS__TTL_HTTP_PORT", "TTL_STREAMS_TTL_HTTP_PORT_", "TTL_STREAMS_TTL____PORT"})
    void shouldRefuseAVariableThatNamesNoKey(String variable) {
        assertThatThrownBy(() -> ConfigLayers.fromEnvironment(Map.of(variable, "1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(variable);
    }

    @Test
    void shouldIgnoreOtherVariablesAndTheLaunchersOwn() {
        assertThat(ConfigLayers.fromEnvironment(Map.of(
                        "PATH", "/usr/bin",
                        "TTL_STREAMS_JAVA_OPTS", "-Xmx1g",
                        "KAFKA_BOOTSTRAP_SERVERS", "elsewhere:9092",
                        "TTL_STREAMS_TTL_HTTP_PORT", "9090")))
                .containsExactly(Map.entry("ttl.http.port", "9090"));
    }

    @Test
    void shouldLetTheEnvironmentOverrideTheFileAndTheCommandLineOverrideBoth() throws IOException {
        Path file = file(
                TestConfigs.lines(),
                "bootstrap.servers=from-file:9092",
                "ttl.http.port=8081",
                "ttl.delete.topic=file.deletes");

        TtlStreamsConfig config = ConfigLayers.load(
                file,
                Map.of("TTL_STREAMS_BOOTSTRAP_SERVERS", "from-env:9092", "TTL_STREAMS_TTL_HTTP_PORT", "8082"),
                List.of("ttl.http.port=8083", "ttl.http.port=8084"));

        assertThat(config.streamsProperties().getProperty("bootstrap.servers")).isEqualTo("from-env:9092");
        assertThat(config.httpPort()).as("the last --set wins").isEqualTo(8084);
        assertThat(config.deleteTopic()).isEqualTo("file.deletes");
    }

    @Test
    void shouldConfigureARuleEntirelyFromTheEnvironment() throws IOException {
        TtlStreamsConfig config = ConfigLayers.load(
                file("bootstrap.servers=kafka:9092"),
                Map.of(
                        "TTL_STREAMS_TTL_RULES", "user-sessions",
                        "TTL_STREAMS_TTL_RULE_USER___SESSIONS_NAMESPACE", "app.sessions",
                        "TTL_STREAMS_TTL_RULE_USER___SESSIONS_FIELD", "expireAt",
                        "TTL_STREAMS_TTL_RULE_USER___SESSIONS_EXPIRE_AFTER_SECONDS", "30"),
                List.of());

        assertThat(config.rules().rules()).singleElement().satisfies(rule -> {
            assertThat(rule.name()).isEqualTo("user-sessions");
            assertThat(rule.namespace().toString()).isEqualTo("app.sessions");
        });
    }

    @Test
    void shouldRejectAnUnknownOptionFromTheEnvironmentByItsKey() throws IOException {
        Path file = file(TestConfigs.lines("ttl.rule.sessions.field", "x"));

        assertThatThrownBy(() -> ConfigLayers.load(file, Map.of("TTL_STREAMS_TTL_HTTP_PROT", "1"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.http.prot")
                .hasMessageContaining("did you mean ttl.http.port");
    }

    @Test
    void shouldNameTheVariableWhenAnOptionFromTheEnvironmentIsWrong() throws IOException {
        Path file = file(TestConfigs.lines("ttl.rule.sessions.field", "x"));

        assertThatThrownBy(() -> ConfigLayers.load(file, Map.of("TTL_STREAMS_TTL_HTTP_PROT", "1"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Environment variable TTL_STREAMS_TTL_HTTP_PROT (ttl.http.prot): Unknown"
                        + " configuration ttl.http.prot")
                .hasMessageContaining("did you mean ttl.http.port");
        assertThatThrownBy(() -> ConfigLayers.load(file, Map.of("TTL_STREAMS_TTL_HTTP_PORT", "x"), List.of()))
                .hasMessageStartingWith(
                        "Environment variable TTL_STREAMS_TTL_HTTP_PORT (ttl.http.port): Invalid value x");
    }

    @Test
    void shouldNotBlameTheEnvironmentWhenTheCommandLineSetTheWrongValue() throws IOException {
        Path file = file(TestConfigs.lines("ttl.rule.sessions.field", "x"));

        assertThatThrownBy(() -> ConfigLayers.load(
                        file, Map.of("TTL_STREAMS_TTL_HTTP_PORT", "8080"), List.of("ttl.http.port=x")))
                .hasMessageStartingWith("Invalid value x for configuration ttl.http.port");
    }

    @Test
    void shouldRejectASetWithoutKeyValue() {
        assertThatThrownBy(() -> ConfigLayers.parseOverrides(List.of("ttl.http.port")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--set ttl.http.port is not key=value");
        assertThatThrownBy(() -> ConfigLayers.parseOverrides(List.of("=1"))).isInstanceOf(ConfigException.class);
        assertThat(ConfigLayers.parseOverrides(
                        List.of("ttl.rule.s.partial.filter={\"a\": \"b=c\"}", "ttl.audit.topic=")))
                .containsEntry("ttl.rule.s.partial.filter", "{\"a\": \"b=c\"}")
                .containsEntry("ttl.audit.topic", "");
    }

    @Test
    void shouldLayerOverABundledConfiguration() {
        TtlStreamsConfig bundled = TestConfigs.config("ttl.http.port", "8080");

        TtlStreamsConfig layered = ConfigLayers.over(bundled, Map.of("TTL_STREAMS_TTL_HTTP_PORT", "0"), List.of());

        assertThat(layered.httpPort()).isZero();
        assertThat(layered.rules().rules()).hasSize(1);
    }

    /**
     * Kafka's own way, KIP-887: a value written as ${env:NAME} is read from the environment by the
     * EnvVarConfigProvider, for a secret that must not sit in the file.
     */
    @Test
    void shouldResolveEnvironmentReferencesThroughKafkasConfigProvider() throws IOException {
        String variable = System.getenv().containsKey("PATH")
                ? "PATH"
                : System.getenv().keySet().iterator().next();
        Path file = file(TestConfigs.lines(
                "config.providers", "env",
                "config.providers.env.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
                "sasl.jaas.config", "${env:" + variable + "}"));

        TtlStreamsConfig config = ConfigLayers.load(file, Map.of(), List.of());

        assertThat(config.streamsProperties().getProperty("sasl.jaas.config")).isEqualTo(System.getenv(variable));
    }
}
