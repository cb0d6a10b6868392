package io.ttlstreams.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
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
                // unescaped / (common in Base64 passwords), @ and : together, where URI parsers split at the /
                "mongodb://app:ab/cd@mongo:27017/db              | mongodb://***@mongo:27017/db",
                "http://ttl:a/b@c:d/@connect:8083/connectors     | http://***@connect:8083/connectors",
                "http://ttl:/@connect:8083                       | http://***@connect:8083",
                // several hosts, and SRV
                "`mongodb://app:p/w@m1:27017,m2:27017,m3/db?replicaSet=rs0` "
                        + "| `mongodb://***@m1:27017,m2:27017,m3/db?replicaSet=rs0`",
                "mongodb+srv://app:x/y@z@cluster0.example.net/db | mongodb+srv://***@cluster0.example.net/db",
                // no parser accepts these
                "`mongodb://u:p^%zz/ {@[::1:bad` | `mongodb://***@[::1:bad`",
                "`https://u:p%@connect:99999999/x y` | `https://***@connect:99999999/x y`",
                // two URLs on a line: each keeps its host
                "a=http://u:p/1@h1 b=mongodb://v:q/2@h2         | a=http://***@h1 b=mongodb://***@h2",
                // when in doubt, more goes: an @ in a path is taken for the end of a user info
                "http://connect:8083/connectors/x@y              | http://***@y",
                // a URL without user info, and text without URLs, are left alone
                "http://connect:8083/connectors/x                | http://connect:8083/connectors/x",
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
    void shouldMaskTheUserNameOfTheDriversAuthenticationFailure() {
        MongoCredential credential =
                MongoCredential.createScramSha256Credential("ttl-reader", "admin", "pw".toCharArray());
        String message = new MongoSecurityException(credential, "Exception authenticating " + credential).getMessage();
        // What the driver's timeout quotes when every server failed to authenticate, with a name holding quotes.
        String clusterState = "Timed out after 30000 ms while waiting to connect. Client view of cluster state is"
                + " {type=UNKNOWN, servers=[{address=mongo:27017, type=UNKNOWN, state=CONNECTING,"
                + " exception={com.mongodb.MongoSecurityException: Exception authenticating MongoCredential{"
                + "mechanism=SCRAM-SHA-1, userName='o'neil, x', source='admin', password=<hidden>,"
                + " mechanismProperties=<hidden>}}, caused by {com.mongodb.MongoCommandException: Command failed"
                + " with error 18 (AuthenticationFailed): 'Authentication failed.' on server mongo:27017.}}]";

        assertThat(Redaction.redact(message))
                .isEqualTo("Exception authenticating MongoCredential{mechanism=SCRAM-SHA-256, userName='***',"
                        + " source='admin', password=<hidden>, mechanismProperties=<hidden>}");
        assertThat(Redaction.redact(clusterState))
                .doesNotContain("neil")
                .contains("userName='***', source='admin'")
                .contains("'Authentication failed.' on server mongo:27017");
    }

    @Test
    void shouldRedactEveryMessageOfAThrowableChain() {
        MongoCredential credential = MongoCredential.createCredential("ttl-reader", "admin", "pw".toCharArray());
        Exception root = new MongoSecurityException(credential, "Exception authenticating " + credential);
        Exception middle = new IOException("reading mongodb://app:s3/cret@mongo:27017", root);
        Exception top = new IllegalStateException("resync failed", middle);
        top.addSuppressed(new RuntimeException("closing http://u:sup/pressed@connect:8083"));

        Throwable redacted = Redaction.redact(top);

        String trace = stackTrace(redacted);
        assertThat(trace)
                .doesNotContain("ttl-reader")
                .doesNotContain("s3/cret")
                .doesNotContain("sup/pressed")
                .startsWith("java.lang.IllegalStateException: resync failed\n")
                .contains("Caused by: java.io.IOException: reading mongodb://***@mongo:27017\n")
                .contains("Caused by: com.mongodb.MongoSecurityException: Exception authenticating"
                        + " MongoCredential{mechanism=null, userName='***', source='admin'")
                .contains("Suppressed: java.lang.RuntimeException: closing http://***@connect:8083")
                .contains("at " + RedactionTest.class.getName() + ".shouldRedactEveryMessageOfAThrowableChain");
        assertThat(redacted.getMessage()).isEqualTo("resync failed");
        assertThat(redacted.getCause().getMessage()).isEqualTo("reading mongodb://***@mongo:27017");
        assertThat(redacted.getStackTrace()).isEqualTo(top.getStackTrace());
    }

    @Test
    void shouldReturnAThrowableWithoutCredentialsItself() {
        Exception clean = new IOException("no route to http://connect:8083", new RuntimeException("refused"));

        assertThat(Redaction.redact(clean)).isSameAs(clean);
        assertThat(Redaction.redact((Throwable) null)).isNull();
    }

    @Test
    void shouldEndACircularChainWhereItComesBack() {
        Exception first = new RuntimeException("at http://u:p@h");
        Exception second = new RuntimeException("second", first);
        first.initCause(second);

        Throwable redacted = Redaction.redact(first);

        assertThat(redacted.getMessage()).isEqualTo("at http://***@h");
        assertThat(redacted.getCause().getMessage()).isEqualTo("second");
        assertThat(redacted.getCause().getCause()).isNull();
    }

    @Test
    void shouldLeaveNullAlone() {
        assertThat(Redaction.redact((String) null)).isNull();
    }

    private static String stackTrace(Throwable throwable) {
        StringWriter text = new StringWriter();
        throwable.printStackTrace(new PrintWriter(text));
        return text.toString().replace(System.lineSeparator(), "\n");
    }
}
