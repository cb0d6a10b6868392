package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.config;
import static io.ttlstreams.config.TestConfigs.configReadingFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.secrets.BasicCredentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka Connect options: the REST URL and its HTTP Basic credentials. */
class ConnectOptionsTest {

    @Test
    void shouldTakeCredentialsFromTheUrlsUserInfoAndHideThemFromTheUrl() {
        TtlStreamsConfig config = config("ttl.connect.url", "https://admin:p%40ss@connect:8083/base");

        assertThat(config.connectUrl()).contains("https://connect:8083/base");
        BasicCredentials credentials = config.connectCredentials().orElseThrow();
        assertThat(credentials.username()).isEqualTo("admin");
        assertThat(credentials.password().value()).isEqualTo("p@ss");
    }

    @Test
    void shouldTakeCredentialsFromTheOptions() {
        TtlStreamsConfig config = config(
                "ttl.connect.url", "http://connect:8083",
                "ttl.connect.username", "admin",
                "ttl.connect.password", "s3cret");

        assertThat(config.connectUrl()).contains("http://connect:8083");
        assertThat(config.connectCredentials())
                .hasValueSatisfying(credentials ->
                        assertThat(credentials.password().value()).isEqualTo("s3cret"));
    }

    @Test
    void shouldHaveNoCredentialsByDefault() {
        assertThat(config("ttl.connect.url", "http://connect:8083").connectCredentials())
                .isEmpty();
        assertThat(config().connectCredentials()).isEmpty();
    }

    @Test
    void shouldReadThePasswordThroughAConfigProvider(@TempDir Path dir) throws IOException {
        Path secrets = Files.writeString(dir.resolve("connect.properties"), "password=fr0m-a-File\n");

        TtlStreamsConfig config = configReadingFiles(
                "ttl.connect.url",
                "http://connect:8083",
                "ttl.connect.username",
                "admin",
                "ttl.connect.password",
                "${file:" + secrets + ":password}");

        assertThat(config.connectCredentials().orElseThrow().password().value()).isEqualTo("fr0m-a-File");
    }

    @Test
    void shouldValidateAUrlFromAConfigProviderOnceResolved(@TempDir Path dir) throws IOException {
        Path secrets = Files.writeString(dir.resolve("connect.properties"), "url=http://u:p@connect:8083\n");

        TtlStreamsConfig config = configReadingFiles("ttl.connect.url", "${file:" + secrets + ":url}");

        assertThat(config.connectUrl()).contains("http://connect:8083");
        assertThat(config.connectCredentials().orElseThrow().username()).isEqualTo("u");
    }

    @Test
    void shouldRefuseCredentialsGivenBothWaysNamingTheOptions() {
        assertThatThrownBy(() -> config(
                        "ttl.connect.url", "http://admin:s3cret@connect:8083",
                        "ttl.connect.username", "admin",
                        "ttl.connect.password", "other"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.connect.url")
                .hasMessageContaining("ttl.connect.username")
                .hasMessageContaining("ttl.connect.password")
                .hasMessageNotContaining("s3cret")
                .hasMessageNotContaining("other");
    }

    @Test
    void shouldRequireTheUserNameAndPasswordTogether() {
        assertThatThrownBy(() -> config("ttl.connect.url", "http://connect:8083", "ttl.connect.username", "admin"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("ttl.connect.password is missing");
        assertThatThrownBy(() -> config("ttl.connect.url", "http://connect:8083", "ttl.connect.password", "s3cret"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("ttl.connect.username is missing")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void shouldRefuseCredentialsWithoutAUrl() {
        assertThatThrownBy(() -> config("ttl.connect.username", "admin", "ttl.connect.password", "s3cret"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.connect.url");
    }

    @Test
    void shouldRefuseABadUrlWithoutShowingItsPassword() {
        for (String url : new String[] {
            "ftp://admin:s3cret@connect",
            "http://admin:s3 cret@connect:8083",
            "http://admin:s3cret@",
            "http://a:s3cret%zz@h"
        }) {
            assertThatThrownBy(() -> config("ttl.connect.url", url))
                    .as(url)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("ttl.connect.url")
                    .hasMessageNotContaining("s3");
        }
    }
}
