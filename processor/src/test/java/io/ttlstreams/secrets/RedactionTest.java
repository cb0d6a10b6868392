package io.ttlstreams.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedactionTest {

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "http://admin:s3cret@connect:8083                | http://***@connect:8083",
                "https://token@connect:8083/base                 | https://***@connect:8083/base",
                "mongodb://app:pw@mongo:27017/db?authSource=adm  | mongodb://***@mongo:27017/db?authSource=adm",
                "mongodb+srv://app:pw@cluster.example.net        | mongodb+srv://***@cluster.example.net",
                // unescaped @, #, : and spaces in a password: up to the last @ before a slash
                "mongodb://app:p@ss#w:rd x@mongo:27017/          | mongodb://***@mongo:27017/",
                "http://a%40b:p%3Aw@connect                      | http://***@connect",
                // a URL without user info, and text without URLs, are left alone
                "http://connect:8083/connectors/x@y              | http://connect:8083/connectors/x@y",
                "mail ops@example.com about it                   | mail ops@example.com about it",
                "`Kafka Connect at http://connect:8083/ refused` | `Kafka Connect at http://connect:8083/ refused`",
            })
    void shouldMaskTheUserInfoOfEveryUrl(String text, String expected) {
        assertThat(Redaction.redact(text)).isEqualTo(expected);
    }

    @Test
    void shouldMaskConnectionUrisQuotedInAConnectError() {
        String body = "{\"error_code\":400,\"message\":\"Connector configuration is invalid and contains the following"
                + " 2 error(s):\\nInvalid value mongodb://app:m0ngo-Secret@mongo:27017 for configuration"
                + " connection.uri: bad\\nInvalid value http://u:Pw-2@h for configuration x\"}";

        String redacted = Redaction.redact(body);

        assertThat(redacted)
                .doesNotContain("m0ngo-Secret")
                .doesNotContain("Pw-2")
                .contains("mongodb://***@mongo:27017")
                .contains("http://***@h")
                .startsWith("{\"error_code\":400,\"message\":\"Connector configuration is invalid");
    }

    @Test
    void shouldMaskEveryLineOfAMultiLineText() {
        assertThat(Redaction.redact("url = http://a:one@h1\nuri = mongodb://b:two@h2\n"))
                .isEqualTo("url = http://***@h1\nuri = mongodb://***@h2\n");
    }

    @Test
    void shouldLeaveNullAlone() {
        assertThat(Redaction.redact(null)).isNull();
    }
}
