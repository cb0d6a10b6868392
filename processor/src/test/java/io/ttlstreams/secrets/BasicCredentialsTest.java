package io.ttlstreams.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

class BasicCredentialsTest {

    @Test
    void shouldPercentDecodeTheUserInfo() {
        BasicCredentials credentials = BasicCredentials.fromUserInfo(
                        URI.create("http://conn%3Aect:p%40ss+w%C3%B6rd:x@connect:8083"))
                .orElseThrow();

        assertThat(credentials.username()).isEqualTo("conn:ect");
        assertThat(credentials.password().value()).isEqualTo("p@ss+wörd:x");
    }

    @Test
    void shouldTakeUserInfoWithoutAColonAsTheUserName() {
        BasicCredentials credentials = BasicCredentials.fromUserInfo(URI.create("https://token@connect"))
                .orElseThrow();

        assertThat(credentials.username()).isEqualTo("token");
        assertThat(credentials.password().value()).isEmpty();
    }

    @Test
    void shouldFindNoneWithoutUserInfo() {
        assertThat(BasicCredentials.fromUserInfo(URI.create("http://connect:8083")))
                .isEmpty();
    }

    @Test
    void shouldRemoveTheUserInfoAndKeepTheRest() {
        assertThat(BasicCredentials.withoutUserInfo(URI.create("http://u:p%40w@[::1]:8083/base%20path?q=1#f")))
                .hasToString("http://[::1]:8083/base%20path?q=1#f");
        assertThat(BasicCredentials.withoutUserInfo(URI.create("http://connect:8083")))
                .hasToString("http://connect:8083");
    }

    @Test
    void shouldBuildTheBasicAuthorizationHeader() {
        String header = new BasicCredentials("admin", new Password("p@ss wörd")).authorizationHeader();

        assertThat(header).startsWith("Basic ");
        assertThat(new String(Base64.getDecoder().decode(header.substring(6)), StandardCharsets.UTF_8))
                .isEqualTo("admin:p@ss wörd");
    }

    @Test
    void shouldNeverPrintThePassword() {
        assertThat(new BasicCredentials("admin", new Password("s3cret")).toString())
                .contains("admin")
                .doesNotContain("s3cret");
    }
}
