package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.ttlstreams.http.Response;
import io.ttlstreams.query.PeerClient;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The optional bearer token, {@code ttl.http.auth.token}, through a real server. */
class HttpAuthTest {

    private static final String TOKEN = "s3cret-token-of-32-characters-ok";
    private static final String BEARER = "Bearer " + TOKEN;

    @TempDir
    Path stateDir;

    private TestServer running;

    @AfterEach
    void stop() {
        if (running != null) {
            running.close();
        }
    }

    private void start(Map<String, String> extra) {
        running = TestServer.start(stateDir, extra);
    }

    @Test
    void shouldAsk401WithABearerChallengeOnV1WithoutTheToken() throws Exception {
        start(Map.of("ttl.http.auth.token", TOKEN));

        HttpResponse<String> without = running.get("/v1/status");
        HttpResponse<String> wrong = running.get("/v1/status", "Authorization", "Bearer " + TOKEN + "x");
        HttpResponse<String> schedule = running.get("/v1/schedule?bucket=1d");

        assertThat(without.statusCode()).isEqualTo(401);
        assertThat(without.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"ttl-streams\"");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(schedule.statusCode()).isEqualTo(401);
        assertThat(running.get("/v1/documents/app.sessions/%7B%7D").statusCode())
                .isEqualTo(401);
    }

    @Test
    void shouldAnswerV1AndTheStatusPageWithTheToken() throws Exception {
        start(Map.of("ttl.http.auth.token", TOKEN));
        String basic =
                "Basic " + Base64.getEncoder().encodeToString(("anyone:" + TOKEN).getBytes(StandardCharsets.UTF_8));

        assertThat(running.get("/v1/status", "Authorization", BEARER).statusCode())
                .isEqualTo(200);
        assertThat(running.get("/v1/status", "Authorization", basic).statusCode())
                .isEqualTo(200);
        HttpResponse<String> page = running.get("/");
        assertThat(page.statusCode()).isEqualTo(401);
        assertThat(page.headers().firstValue("WWW-Authenticate"))
                .hasValueSatisfying(challenge -> assertThat(challenge).startsWith("Basic realm=\"ttl-streams\""));
        assertThat(running.get("/", "Authorization", basic).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldAskForTheTokenOnThePathAsRoutedWhenItClimbsOutOfAProbe() throws Exception {
        start(Map.of("ttl.http.auth.token", TOKEN));

        try (Socket socket = new Socket(running.url().getHost(), running.url().getPort())) {
            socket.setSoTimeout(5_000);
            // Sent as it is: an HTTP client would normalize the path first. Routed as /v1/status, checked as such.
            socket.getOutputStream()
                    .write("GET /health/../v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);

            assertThat(answer).startsWith("HTTP/1.1 401 ").doesNotContain("\"instance\"");
        }
    }

    @Test
    void shouldLeaveProbesAndMetricsOpenByDefault() throws Exception {
        start(Map.of("ttl.http.auth.token", TOKEN));

        assertThat(running.get("/health/live").statusCode()).isEqualTo(200);
        assertThat(running.get("/health/ready").statusCode()).isEqualTo(503);
        assertThat(running.get("/metrics").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldAskForTheTokenOnMetricsAndProbesWhenTheirOptionsSaySo() throws Exception {
        start(Map.of(
                "ttl.http.auth.token", TOKEN,
                "ttl.http.auth.metrics", "true",
                "ttl.http.auth.probes", "true"));

        assertThat(running.get("/metrics").statusCode()).isEqualTo(401);
        assertThat(running.get("/metrics", "Authorization", BEARER).statusCode())
                .isEqualTo(200);
        assertThat(running.get("/health/live").statusCode()).isEqualTo(401);
        assertThat(running.get("/health/live", "Authorization", BEARER).statusCode())
                .isEqualTo(200);
    }

    @Test
    void shouldAskForNothingWithoutAToken() throws Exception {
        start(Map.of("ttl.http.auth.metrics", "true", "ttl.http.auth.probes", "true"));

        assertThat(running.get("/v1/status").statusCode()).isEqualTo(200);
        assertThat(running.get("/metrics").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldRefuseAShortTokenAtStartUpNamingTheOption() {
        assertThatThrownBy(() -> TestServer.config(Map.of("ttl.http.auth.token", "short")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.http.auth.token")
                .hasMessageNotContaining("short");
    }

    @Test
    void shouldSendTheTokenWhenForwardingToAnotherInstance() throws Exception {
        AtomicReference<String> received = new AtomicReference<>();
        HttpServer peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.createContext("/", exchange -> {
            received.set(exchange.getRequestHeaders().getFirst("Authorization"));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        peer.start();
        try {
            Response response = new PeerClient(Optional.of(BEARER))
                    .get(new HostInfo("127.0.0.1", peer.getAddress().getPort()), "/v1/schedule?scope=local");

            assertThat(response.status()).isEqualTo(204);
            assertThat(received.get()).isEqualTo(BEARER);
        } finally {
            peer.stop(0);
        }
    }
}
