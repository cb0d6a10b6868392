package io.ttlstreams.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Passwords and secrets in JAAS lines and key=value text are masked wherever text is printed or logged. */
class SecretAssignmentRedactionTest {

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "`ScramLoginModule required username=\"ttl-processor\" password=\"p/w;x=1\";`"
                        + " | `ScramLoginModule required username=\"ttl-processor\" password=\"***\";`",
                "`PlainLoginModule required username='a' password='b c' user_admin=\"adm1n\";`"
                        + " | `PlainLoginModule required username='a' password='***' user_admin=\"***\";`",
                "ssl.keystore.password=k3y ssl.truststore.password = tru5t"
                        + " | ssl.keystore.password=*** ssl.truststore.password = ***",
                "`OAuthBearerLoginModule required clientId=\"c\" clientSecret=\"s3cr3t\";`"
                        + " | `OAuthBearerLoginModule required clientId=\"c\" clientSecret=\"***\";`",
                "`password=\"escaped \\\" quote\" next=1` | `password=\"***\" next=1`",
            })
    void shouldMaskTheValueOfEveryPasswordOrSecret(String text, String expected) {
        assertThat(Redaction.redact(text)).isEqualTo(expected);
    }

    @Test
    void shouldLeaveWhatKafkaHidAndWhatIsNoSecretAsItIs() {
        String dump = "sasl.jaas.config = [hidden] ssl.key.password = [hidden] password=<hidden> username=ttl";
        assertThat(Redaction.redact(dump)).isEqualTo(dump);
        assertThat(Redaction.redact("the password policy says: no")).isEqualTo("the password policy says: no");
    }

    @Test
    void shouldRedactAnExceptionThatQuotesAJaasLine() {
        Throwable redacted = Redaction.redact(new IllegalStateException("bad: password=\"p4ss\";"));
        assertThat(redacted.getMessage()).isEqualTo("bad: password=\"***\";");
    }
}
