package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.config;
import static io.ttlstreams.config.TestConfigs.configReadingFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.SigningKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ttl.command.signing.key}: optional, at least 32 bytes, never printed, resolvable through config providers. */
class CommandSigningKeyConfigTest {

    private static final String SECRET = "0123456789abcdef0123456789abcdef-secret";

    @Test
    void shouldSignNothingWhenUnsetOrEmpty() {
        assertThat(config().commandSigningKey()).isEmpty();
        assertThat(config("ttl.command.signing.key", "").commandSigningKey()).isEmpty();
    }

    @Test
    void shouldTakeTheSecretAndKeepItOutOfTheStreamsSettings() {
        TtlStreamsConfig config = config("ttl.command.signing.key", SECRET);

        assertThat(config.commandSigningKey())
                .map(SigningKey::id)
                .contains(SigningKey.of(SECRET).id());
        assertThat(config.streamsProperties().toString()).doesNotContain(SECRET);
    }

    @Test
    void shouldRefuseAShortKeyAtStartUpNamingTheOptionButNotTheSecret() {
        assertThatThrownBy(() -> config("ttl.command.signing.key", "too-short-a-secret"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.command.signing.key")
                .hasMessageContaining("at least 32 bytes")
                .hasMessageContaining("[hidden]")
                .hasMessageNotContaining("too-short-a-secret");
    }

    @Test
    void shouldResolveTheKeyThroughTheFileConfigProvider(@TempDir Path dir) throws IOException {
        Path secrets = Files.writeString(dir.resolve("ttl-signing.properties"), "key=" + SECRET + "\n");

        TtlStreamsConfig config = configReadingFiles("ttl.command.signing.key", "${file:" + secrets + ":key}");

        assertThat(config.commandSigningKey())
                .map(SigningKey::id)
                .contains(SigningKey.of(SECRET).id());
    }

    @Test
    void shouldRefuseAReferenceThatNoProviderResolves() {
        assertThatThrownBy(() -> config("ttl.command.signing.key", "${file:/secrets/ttl-signing.properties:key}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.command.signing.key")
                .hasMessageContaining("unresolved config provider reference");
    }

    @Test
    void shouldRefuseAShortKeyThatAProviderResolves(@TempDir Path dir) throws IOException {
        Path secrets = Files.writeString(dir.resolve("short.properties"), "key=short\n");

        assertThatThrownBy(() -> configReadingFiles("ttl.command.signing.key", "${file:" + secrets + ":key}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.command.signing.key")
                .hasMessageContaining("this one has 5");
    }
}
