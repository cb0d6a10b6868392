package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.connect.FakeConnect;
import io.ttlstreams.secrets.LogCapture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code run} registering the connectors with a Kafka Connect that requires HTTP Basic authentication, in process:
 * nothing it prints or logs, on success or on any failure, shows a password.
 *
 * <p>No Kafka cluster runs: after a successful registration {@code run} goes on to Kafka Streams, whose clients
 * refuse the configuration's {@code bootstrap.servers} at once, before connecting anywhere.
 */
class RunConnectRegistrationTest {

    private static final String USER = "admin";
    private static final String PASSWORD = "s3cr@t-Pw";
    private static final String PASSWORD_IN_URL = "s3cr%40t-Pw";
    private static final String MONGODB_PASSWORD = "m0ngo-Secret";
    private static final String MONGODB_URI = "mongodb://app:" + MONGODB_PASSWORD + "@mongo:27017/?replicaSet=rs0";

    /** Every form in which a secret of these tests could leak. */
    private static final List<String> SECRETS = List.of(
            PASSWORD,
            PASSWORD_IN_URL,
            MONGODB_PASSWORD,
            Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8)));

    private static final String SIGNING_KEY = "a-signing-key-of-at-least-32-bytes-for-tests";

    @TempDir
    Path directory;

    private FakeConnect connect;
    private LogCapture log;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final ByteArrayOutputStream systemOut = new ByteArrayOutputStream();
    private final ByteArrayOutputStream systemErr = new ByteArrayOutputStream();
    private PrintStream originalOut;
    private PrintStream originalErr;

    @BeforeEach
    void start() throws IOException {
        connect = FakeConnect.start().requireBasicAuth(USER, PASSWORD);
        log = LogCapture.start();
        originalOut = System.out;
        originalErr = System.err;
        System.setOut(new PrintStream(systemOut, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(systemErr, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        System.setOut(originalOut);
        System.setErr(originalErr);
        log.close();
        connect.close();
    }

    private int run(String connectSettings, String... options) throws IOException {
        Path config = Files.writeString(
                directory.resolve("processor.properties"),
                TestConfigs.lines()
                        + String.join(
                                "\n",
                                "bootstrap.servers=no-port-given",
                                // The sink run registers applies signed commands only: without a key, run refuses.
                                "ttl.command.signing.key=" + SIGNING_KEY,
                                // A free port, so that the HTTP server started after the registration never meets a
                                // taken one.
                                "ttl.http.port=0",
                                connectSettings,
                                ""));
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        String[] args = Stream.concat(Stream.of("run", "--config", config.toString()), Stream.of(options))
                .toArray(String[]::new);
        return commandLine.execute(args);
    }

    /** stdout and stderr, of picocli and of the JVM, and the log. */
    private String everything() {
        return String.join(
                "\n",
                out.toString(),
                err.toString(),
                systemOut.toString(StandardCharsets.UTF_8),
                systemErr.toString(StandardCharsets.UTF_8),
                log.text());
    }

    private void assertNoSecretAnywhere() {
        String everything = everything();
        for (String secret : SECRETS) {
            assertThat(everything).as("all output").doesNotContain(secret);
        }
    }

    /** The single error line of a clean failure: no stack trace. */
    private String errorLine() {
        assertThat(err.toString().lines()).hasSize(1);
        assertThat(everything()).doesNotContain("\tat ");
        return err.toString().strip();
    }

    @Test
    void shouldRegisterTheConnectorsWithTheUrlsUserInfo() throws IOException {
        int exitCode =
                run("ttl.connect.url=" + connect.url(USER + ":" + PASSWORD_IN_URL), "--mongodb-uri", MONGODB_URI);

        assertThat(connect.accepted())
                .extracting(FakeConnect.Request::path)
                .containsExactly("/connectors/mongo-source-app/config", "/connectors/mongo-ttl-sink/config");
        assertThat(systemOut.toString(StandardCharsets.UTF_8))
                .contains("ttl-streams: connector mongo-ttl-sink registered at " + connect.url() + "/");
        // Kafka's configuration dump logs the option, redacted: the log path was taken.
        assertThat(log.text()).contains("ttl.connect.url = http://***@127.0.0.1:");
        assertThat(exitCode)
                .as("registered, then stopped at bootstrap.servers, which names no broker")
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(errorLine()).contains("bootstrap.servers");
        assertNoSecretAnywhere();
    }

    @Test
    void shouldRegisterTheConnectorsWhenConnectAnswersOnlyAfterStartingUp() throws IOException {
        connect.unavailableFor(2);

        int exitCode =
                run("ttl.connect.url=" + connect.url(USER + ":" + PASSWORD_IN_URL), "--mongodb-uri", MONGODB_URI);

        assertThat(connect.requests()).extracting(FakeConnect.Request::status).containsExactly(503, 503, 201, 201);
        assertThat(connect.accepted())
                .extracting(FakeConnect.Request::path)
                .containsExactly("/connectors/mongo-source-app/config", "/connectors/mongo-ttl-sink/config");
        assertThat(exitCode)
                .as("registered, then stopped at bootstrap.servers, which names no broker")
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(errorLine()).contains("bootstrap.servers");
    }

    @Test
    void shouldRefuseToRegisterASinkThatRequiresSignaturesWhenRunHasNoSigningKey() throws IOException {
        int exitCode = run(
                "ttl.connect.url=" + connect.url(USER + ":" + PASSWORD_IN_URL), "--set", "ttl.command.signing.key=");

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(errorLine())
                .startsWith("ttl-streams run: cannot register the connectors: the sink connector run registers")
                .contains("ttl.command.signing.key is not set");
        assertThat(connect.requests()).isEmpty();
    }

    @Test
    void shouldRegisterTheConnectorsWithTheCredentialOptions() throws IOException {
        int exitCode = run(String.join(
                "\n",
                "ttl.connect.url=" + connect.url(),
                "ttl.connect.username=" + USER,
                "ttl.connect.password=" + PASSWORD));

        assertThat(connect.accepted()).hasSize(2);
        assertThat(log.text()).contains("ttl.connect.password = [hidden]");
        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertNoSecretAnywhere();
    }

    @Test
    void shouldExitWithTwoWhenConnectRefusesAConnectorQuotingItsUri() throws IOException {
        connect.refuseConfigs();

        int exitCode =
                run("ttl.connect.url=" + connect.url(USER + ":" + PASSWORD_IN_URL), "--mongodb-uri", MONGODB_URI);

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(errorLine())
                .startsWith("ttl-streams run: cannot register the connectors: Kafka Connect at " + connect.url()
                        + "/ refused connector mongo-source-app: HTTP 400")
                .contains("Invalid value mongodb://***@mongo:27017/?replicaSet=rs0");
        assertNoSecretAnywhere();
    }

    @Test
    void shouldExitWithTwoWhenConnectRefusesTheCredentials() throws IOException {
        connect.requireBasicAuth(USER, "another-" + PASSWORD);

        int exitCode = run("ttl.connect.url=" + connect.url(USER + ":" + PASSWORD_IN_URL));

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(errorLine()).contains("HTTP 401 (it did not accept the credentials)");
        assertThat(connect.requests()).hasSize(1);
        assertNoSecretAnywhere();
    }

    @Test
    void shouldExitWithTwoWhenConnectCannotBeReached() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        int exitCode = run(String.join(
                "\n",
                "ttl.connect.url=http://" + USER + ":" + PASSWORD_IN_URL + "@127.0.0.1:" + closedPort,
                "ttl.startup.timeout.ms=600"));

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(errorLine())
                .startsWith("ttl-streams run: cannot register the connectors: Kafka Connect was still unavailable"
                        + " after 600 ms (ttl.startup.timeout.ms, ")
                .contains("Cannot reach Kafka Connect at http://127.0.0.1:" + closedPort + "/");
        assertNoSecretAnywhere();
    }

    @Test
    void shouldExitWithTwoOnAMalformedUrlWithoutQuotingItsPassword() throws IOException {
        int exitCode = run("ttl.connect.url=ftp://" + USER + ":" + PASSWORD + "@connect:8083");

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(errorLine()).contains("ttl.connect.url").contains("ftp://***@connect:8083");
        assertThat(connect.requests()).isEmpty();
        assertNoSecretAnywhere();
    }

    @Test
    void shouldRefuseASweepWithoutAMongodbUriBeforeRegisteringAnything() throws IOException {
        int exitCode = run(String.join(
                "\n", "ttl.connect.url=" + connect.url(USER + ":" + PASSWORD_IN_URL), "ttl.resync.interval.ms=60000"));

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(errorLine()).contains("ttl.resync.interval.ms is set but ttl.mongodb.uri is not");
        assertThat(connect.requests()).isEmpty();
    }
}
