package io.ttlstreams.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.ttlstreams.http.Response;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Forwarding a query to another instance: its answer passes through as sent, unless too large or too slow. */
class PeerClientTest {

    private HttpServer peer;

    @AfterEach
    void stopPeer() {
        if (peer != null) {
            peer.stop(0);
        }
    }

    /** Starts the fake instance on a free port of 127.0.0.1, answering every request with {@code handler}. */
    private HostInfo peer(HttpHandler handler) throws IOException {
        peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.createContext("/", handler);
        peer.start();
        return new HostInfo("127.0.0.1", peer.getAddress().getPort());
    }

    private static HttpHandler answering(int status, String contentType, byte[] body) {
        return exchange -> {
            exchange.getResponseHeaders().add("Content-Type", contentType);
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        };
    }

    @Test
    void shouldPassTheAnswerThroughByteForByteWhenItIsWithinBounds() throws Exception {
        byte[] body = {'{', '"', 'x', '"', ':', ' ', '1', '}', 0, (byte) 0xff, '\n'};
        HostInfo host = peer(answering(404, "application/json; charset=utf-8", body));

        Response response = new PeerClient(Optional.empty()).get(host, "/v1/documents/app.sessions/s1");

        assertThat(response.status()).isEqualTo(404);
        assertThat(response.contentType()).isEqualTo("application/json; charset=utf-8");
        assertThat(response.body()).isEqualTo(body);
    }

    @Test
    void shouldPassARedirectThroughWithoutFollowingIt() throws Exception {
        HostInfo host = peer(exchange -> {
            exchange.getResponseHeaders().add("Location", "/v1/elsewhere");
            exchange.sendResponseHeaders(exchange.getRequestURI().getPath().equals("/v1/elsewhere") ? 200 : 302, -1);
            exchange.close();
        });

        Response response = new PeerClient(Optional.empty()).get(host, "/v1/documents/app.sessions/s1");

        assertThat(response.status()).isEqualTo(302);
    }

    @Test
    void shouldPassAnAnswerOfExactlyTheLimitWhenItFits() throws Exception {
        byte[] body = new byte[PeerClient.MAX_ANSWER_BYTES];
        Arrays.fill(body, (byte) 'x');
        HostInfo host = peer(answering(200, "application/json", body));

        Response response = new PeerClient(Optional.empty()).get(host, "/v1/schedule?scope=local");

        assertThat(response.body()).isEqualTo(body);
    }

    @Test
    void shouldRefuseTheAnswerNamingThePeerAndTheLimitWhenItIsLargerThanTheLimit() throws Exception {
        byte[] body = new byte[PeerClient.MAX_ANSWER_BYTES + 1];
        Arrays.fill(body, (byte) 'x');
        HostInfo host = peer(answering(200, "application/json", body));

        assertThatThrownBy(() -> new PeerClient(Optional.empty()).get(host, "/v1/schedule?scope=local"))
                .isInstanceOf(IOException.class)
                .hasMessage("127.0.0.1:" + host.port() + ": the answer exceeds the limit of 1048576 bytes");
    }

    @Test
    void shouldNameThePeerWhenItCannotBeReached() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }

        assertThatThrownBy(
                        () -> new PeerClient(Optional.empty()).get(new HostInfo("127.0.0.1", closed), "/v1/schedule"))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("127.0.0.1:" + closed + ": ");
    }

    @Test
    void shouldCutThePeerOffWhenItsBodyIsIncompleteAtTheDeadline() throws Exception {
        CompletableFuture<Boolean> cutOff = new CompletableFuture<>();
        HostInfo host = peer(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            // A byte every 100 ms, 5 s in all: far past the deadline, yet a client without one gets the whole answer
            // in the end, and the test fails instead of hanging.
            try (OutputStream out = exchange.getResponseBody()) {
                for (int drop = 0; drop < 50; drop++) {
                    out.write('x');
                    out.flush();
                    TimeUnit.MILLISECONDS.sleep(100);
                }
                cutOff.complete(false);
            } catch (IOException e) {
                cutOff.complete(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        assertThatThrownBy(() ->
                        new PeerClient(Optional.empty(), Duration.ofMillis(300)).get(host, "/v1/schedule?scope=local"))
                .isInstanceOf(HttpTimeoutException.class)
                .hasMessage("127.0.0.1:" + host.port() + ": no complete answer within 300 ms");
        assertThat(cutOff.get(30, TimeUnit.SECONDS))
                .as("the connection was closed while the peer was still sending")
                .isTrue();
    }
}
