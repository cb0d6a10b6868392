package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ttlstreams.contract.PercentEncoding;
import io.ttlstreams.http.OperationsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP surface as hostile input meets it: parameters out of range, half-sent requests, deep keys, markup. */
@Timeout(60)
class HttpHardeningTest {

    private static final String OVERFLOWING_RANGE =
            "/v1/schedule?from=-150000000-01-01T00:00:00Z&to=%2B150000000-01-01T00:00:00Z&bucket=1d";
    private static final String HALF_SENT = "GET /health/live HTTP/1.1\r\nHost: x\r\n";

    @TempDir
    Path stateDir;

    private TestServer running;
    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        if (running != null) {
            running.close();
        }
    }

    private static String error(HttpResponse<String> response) {
        return BsonDocument.parse(response.body()).getString("error").getValue();
    }

    @Test
    void shouldAnswer400NamingFromWhenFromAndToAreSoFarApartThatTheirDifferenceOverflows() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        HttpResponse<String> response = running.get(OVERFLOWING_RANGE);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(error(response)).startsWith("from: ").contains("outside 0000-01-01T00:00:00Z");
    }

    @Test
    void shouldAnswer400NamingBucketWhenTheBucketIsHuge() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        for (String bucket : List.of("200000000000d", "99999999999999999999d", "PT2562047788015215H", "367d")) {
            HttpResponse<String> response = running.get("/v1/schedule?bucket=" + bucket);

            assertThat(response.statusCode()).as(bucket).isEqualTo(400);
            assertThat(error(response)).as(bucket).startsWith("bucket: ");
        }
    }

    @Test
    void shouldAnswer400WhenFromAndToHoldTooManyBuckets() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        HttpResponse<String> response =
                running.get("/v1/schedule?from=0000-01-01T00:00:00Z&to=9999-12-31T00:00:00Z&bucket=1ms");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(error(response)).startsWith("bucket: ").contains("at most 1440");
    }

    @Test
    void shouldAnswerEveryOneOfFourConcurrentOversizedQueriesWith400() throws Exception {
        running = TestServer.start(stateDir, Map.of());
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();

        for (int i = 0; i < 4; i++) {
            answers.add(running.http()
                    .sendAsync(
                            HttpRequest.newBuilder(URI.create(running.url() + OVERFLOWING_RANGE.substring(1)))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString()));
        }

        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            assertThat(answer.get().statusCode()).isEqualTo(400);
        }
        assertThat(running.get("/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldAnswer400NamingTheKeyWhenTheDocumentKeyNestsTooDeep() throws Exception {
        running = TestServer.start(stateDir, Map.of());
        // 1,000 levels fit the request-target limit; main read them with the library's recursive reader.
        String deep = "%7B%22_id%22%3A" + "%5B".repeat(1_000) + "%5D".repeat(1_000) + "%7D";

        HttpResponse<String> response = running.get("/v1/documents/app.sessions/" + deep);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(error(response)).startsWith("documentKey ").contains("nests deeper than");
    }

    @Test
    void shouldRefuseALongerRequestTargetThanAnyKeyNeedsWith414() throws Exception {
        running = TestServer.start(stateDir, Map.of());
        String key = PercentEncoding.encode("{\"_id\": \"" + "k".repeat(OperationsServer.MAX_HEAD_BYTES) + "\"}");

        HttpResponse<String> response = running.get("/v1/documents/app.sessions/" + key);

        assertThat(response.statusCode()).isEqualTo(414);
        assertThat(running.get("/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldNotEchoMarkupFromAKey() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        HttpResponse<String> response = running.get(
                "/v1/documents/app.sessions/" + PercentEncoding.encode("{\"_id\": \"<script>alert(1)</script>\""));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).doesNotContain("<", ">");
    }

    @Test
    void shouldAnswerLivenessWhileAHundredHalfSentRequestsAreHeld() throws Exception {
        running = TestServer.start(stateDir, Map.of());
        // Once eight; a hundred is more than the JDK server's pool held, threads and queue together (16 + 64).
        for (int i = 0; i < 100; i++) {
            halfSend();
        }

        await().atMost(Duration.ofSeconds(5))
                .ignoreExceptions()
                .untilAsserted(() ->
                        assertThat(running.get("/health/live").statusCode()).isEqualTo(200));
    }

    @Test
    void shouldCloseAHalfSentRequestAfterTheRequestTimeout() throws Exception {
        running = TestServer.start(stateDir, Map.of("ttl.http.request.timeout.ms", "300"));
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            held.add(halfSend());
        }

        for (Socket socket : held) {
            // A bounded wait for the server to close it (a read timeout here means it did not).
            socket.setSoTimeout(5_000);
            assertThat(closedByServer(socket.getInputStream())).isTrue();
        }
        assertThat(running.get("/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldCloseARequestWhoseHeadTricklesInAfterTheRequestTimeout() throws Exception {
        running = TestServer.start(stateDir, Map.of("ttl.http.request.timeout.ms", "300"));
        Socket socket = halfSend();
        OutputStream out = socket.getOutputStream();
        // One short header line every 50 ms: never silent for the idle timeout, and 400 lines (about 4 kB, 20 s)
        // stay below the head's size limit, so only a deadline on the whole head ends it.
        boolean closed = false;
        for (int line = 0; line < 400 && !closed; line++) {
            try {
                out.write(("X-" + line + ": y\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                Thread.sleep(50);
            } catch (SocketException reset) {
                closed = true;
            }
        }

        // Once the trickle stops, the idle timeout would close it anyway: it must have been closed while it went on.
        assertThat(closed)
                .as("the server closed the connection while the head trickled in")
                .isTrue();
        assertThat(running.get("/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldRefuseARequestWithABodyWith413AndGoOnAnswering() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        HttpResponse<String> response =
                send("GET", "/health/live", HttpRequest.BodyPublishers.ofString("x".repeat(1_000)));

        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(error(response)).isNotBlank();
        assertThat(running.get("/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldRefuseAHeadLargerThanTheLimitWith431AndGoOnAnswering() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        HttpResponse<String> response =
                running.get("/health/live", "X-Padding", "p".repeat(OperationsServer.MAX_HEAD_BYTES));

        assertThat(response.statusCode()).isEqualTo(431);
        assertThat(error(response)).isNotBlank();
        assertThat(running.get("/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldAnswerHeadWithTheStatusAndHeadersAlone() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        HttpResponse<String> response = send("HEAD", "/health/ready", HttpRequest.BodyPublishers.noBody());

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.body()).isEmpty();
    }

    @Test
    void shouldLookUpAKeyWhoseEncodedSegmentHoldsASlashAndAPercentSign() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        HttpResponse<String> response =
                running.get("/v1/documents/app.sessions/" + PercentEncoding.encode("{\"_id\": \"a/../b%2F\"}"));

        assertThat(response.statusCode())
                .as("looked up (no owner before RUNNING), not refused as an ambiguous path: " + response.body())
                .isEqualTo(503);
    }

    @Test
    void shouldRefuseAPathThatClimbsAboveTheRootWith400() throws Exception {
        running = TestServer.start(stateDir, Map.of());

        for (String path : List.of("/../v1/status", "/health/../../v1/status", "/v1/documents/%2e%2e/%2e%2e/x")) {
            assertThat(rawStatusLine(path)).as(path).startsWith("HTTP/1.1 400 ");
        }
        assertThat(running.get("/health/live").statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> send(String method, String path, HttpRequest.BodyPublisher body) throws Exception {
        return running.http()
                .send(
                        HttpRequest.newBuilder(running.url().resolve(path))
                                .method(method, body)
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    /** The status line answered to {@code GET path}, sent as it is (an HTTP client would normalize the path). */
    private String rawStatusLine(String path) throws IOException {
        try (Socket socket = new Socket(running.url().getHost(), running.url().getPort())) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            return answer.lines().findFirst().orElse("");
        }
    }

    private Socket halfSend() throws IOException {
        Socket socket = new Socket(running.url().getHost(), running.url().getPort());
        sockets.add(socket);
        OutputStream out = socket.getOutputStream();
        out.write(HALF_SENT.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** Whether the peer closed the connection without answering: end of stream, or a reset. */
    private static boolean closedByServer(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketException reset) {
            return true;
        }
    }
}
