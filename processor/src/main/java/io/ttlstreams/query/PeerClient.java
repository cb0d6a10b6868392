package io.ttlstreams.query;

import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Request;
import io.ttlstreams.http.Response;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.streams.state.HostInfo;

/** Asks another instance of the application, at its {@code application.server}, over HTTP. */
public final class PeerClient {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final Optional<String> authorization;

    /** @param authorization the {@code Authorization} header every instance asks for; empty for none */
    public PeerClient(Optional<String> authorization) {
        this.authorization = authorization;
    }

    /**
     * GETs {@code pathAndQuery} (raw, as received) from the instance at {@code host}, marked as forwarded.
     *
     * @throws IOException when the instance cannot be reached
     */
    public Response get(HostInfo host, String pathAndQuery) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create("http://" + OperationsServer.hostPort(host) + pathAndQuery))
                .timeout(TIMEOUT)
                .header(Request.FORWARDED_HEADER, "true")
                .GET();
        authorization.ifPresent(value -> request.header("Authorization", value));
        HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Response(
                response.statusCode(),
                response.headers().firstValue("Content-Type").orElse(Response.JSON),
                response.body());
    }
}
