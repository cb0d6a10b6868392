package io.ttlstreams.query;

import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Request;
import io.ttlstreams.http.Response;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Asks another instance of the application, at its {@code application.server}, over HTTP. Its answer is hostile input
 * like any request: read up to {@value #MAX_ANSWER_BYTES} bytes, and in full within one deadline, or refused.
 */
public final class PeerClient {

    /** How long one exchange may take, from connecting to the answer's last byte. */
    private static final Duration DEADLINE = Duration.ofSeconds(5);

    /**
     * The largest answer read. The largest legitimate ones are far smaller: a histogram's counts, at most {@value
     * ScheduleHistogram#MAX_BUCKETS} buckets of about 40 bytes (some 60 KB), and a document's, whose key comes from a
     * request target of at most {@value OperationsServer#MAX_TARGET_LENGTH} characters and grows about tenfold as
     * canonical extended JSON (some 100 KB).
     */
    static final int MAX_ANSWER_BYTES = 1 << 20;

    private final HttpClient http;
    private final Optional<String> authorization;
    private final Duration deadline;

    /** @param authorization the {@code Authorization} header every instance asks for; empty for none */
    public PeerClient(Optional<String> authorization) {
        this(authorization, DEADLINE);
    }

    /** @param deadline how long one exchange may take, body included */
    PeerClient(Optional<String> authorization, Duration deadline) {
        this.authorization = authorization;
        this.deadline = deadline;
        // The client gives up connecting by itself too, so that an attempt abandoned at the deadline does not linger.
        this.http = HttpClient.newBuilder().connectTimeout(deadline).build();
    }

    /**
     * GETs {@code pathAndQuery} (raw, as received) from the instance at {@code host}, marked as forwarded.
     *
     * @throws IOException when the instance cannot be reached, or its answer is larger than {@value
     *     #MAX_ANSWER_BYTES} bytes or incomplete at the deadline; the message names the instance
     */
    public Response get(HostInfo host, String pathAndQuery) throws IOException, InterruptedException {
        String peer = OperationsServer.hostPort(host);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + peer + pathAndQuery))
                .header(Request.FORWARDED_HEADER, "true")
                .GET();
        authorization.ifPresent(value -> request.header("Authorization", value));
        // The request's own timeout ends at the answer's headers only: a body sent slowly would hold this thread, so
        // the whole exchange waits on one deadline instead.
        CompletableFuture<HttpResponse<byte[]>> exchange =
                http.sendAsync(request.build(), headers -> new BoundedBody(MAX_ANSWER_BYTES));
        try {
            HttpResponse<byte[]> response = exchange.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
            return new Response(
                    response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(Response.JSON),
                    response.body());
        } catch (TimeoutException e) {
            throw new HttpTimeoutException(peer + ": no complete answer within " + deadline.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            // A refused connection comes without a message: its class is the message then.
            String why = cause.getMessage() != null
                    ? cause.getMessage()
                    : cause.getClass().getSimpleName();
            throw new IOException(peer + ": " + why, cause);
        } finally {
            // Does nothing to a finished exchange; closes the connection of one past the deadline or interrupted.
            exchange.cancel(true);
        }
    }
}
