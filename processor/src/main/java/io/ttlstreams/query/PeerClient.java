package io.ttlstreams.query;

import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Request;
import io.ttlstreams.http.Response;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Asks another instance of the application, at its {@code application.server}, over HTTP with Jetty's client. Its
 * answer is hostile input like any request: read up to {@value #MAX_ANSWER_BYTES} bytes, and in full within one
 * deadline (Jetty's total timeout, from connecting to the answer's last byte), or refused. Jetty's client has both
 * bounds built in, where the JDK's needed a body subscriber and a deadline of the project's own; the server is Jetty's
 * too.
 */
public final class PeerClient implements AutoCloseable {

    /** How long one exchange may take, from connecting to the answer's last byte. */
    private static final Duration DEADLINE = Duration.ofSeconds(5);

    /**
     * The largest answer read. The largest legitimate ones are far smaller: a histogram's counts, at most {@value
     * ScheduleHistogram#MAX_BUCKETS} buckets of about 40 bytes (some 60 KB), and a document's, whose key comes from a
     * request head of at most {@value OperationsServer#MAX_HEAD_BYTES} bytes and grows about tenfold as canonical
     * extended JSON (some 100 KB).
     */
    static final int MAX_ANSWER_BYTES = 1 << 20;

    private final HttpClient http = new HttpClient();
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
        QueuedThreadPool threads = new QueuedThreadPool(8, 1);
        threads.setName("ttl-streams-peers");
        threads.setDaemon(true);
        http.setExecutor(threads);
        http.setConnectTimeout(deadline.toMillis());
        // An answer passes through as sent: a redirect is the other instance's answer, not a place to go next.
        http.setFollowRedirects(false);
        try {
            http.start();
        } catch (Exception e) {
            throw new IllegalStateException("The HTTP client did not start: " + e.getMessage(), e);
        }
    }

    /**
     * GETs {@code pathAndQuery} (raw, as received) from the instance at {@code host}, marked as forwarded.
     *
     * @throws IOException when the instance cannot be reached, or its answer is larger than {@value
     *     #MAX_ANSWER_BYTES} bytes or incomplete at the deadline; the message names the instance
     */
    public Response get(HostInfo host, String pathAndQuery) throws IOException, InterruptedException {
        String peer = OperationsServer.hostPort(host);
        org.eclipse.jetty.client.Request request = http.newRequest(URI.create("http://" + peer + pathAndQuery))
                .headers(headers -> {
                    headers.put(Request.FORWARDED_HEADER, "true");
                    authorization.ifPresent(value -> headers.put(HttpHeader.AUTHORIZATION, value));
                })
                .timeout(deadline.toMillis(), TimeUnit.MILLISECONDS);
        CompletableFuture<ContentResponse> exchange = new CompletableResponseListener(request, MAX_ANSWER_BYTES).send();
        try {
            ContentResponse response = exchange.get();
            String type = response.getHeaders().get(HttpHeader.CONTENT_TYPE);
            return new Response(response.getStatus(), type == null ? Response.JSON : type, response.getContent());
        } catch (InterruptedException e) {
            request.abort(e);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TimeoutException) {
                throw new HttpTimeoutException(peer + ": no complete answer within " + deadline.toMillis() + " ms");
            }
            if (cause instanceof IllegalArgumentException) {
                // The listener's refusal of an answer past its capacity: the rest is never read.
                throw new IOException(peer + ": the answer exceeds the limit of " + MAX_ANSWER_BYTES + " bytes", cause);
            }
            // A refused connection comes without a message: its class is the message then.
            String why = cause.getMessage() != null
                    ? cause.getMessage()
                    : cause.getClass().getSimpleName();
            throw new IOException(peer + ": " + why, cause);
        }
    }

    /** Closes the connections to the other instances and stops the client's threads. */
    @Override
    public void close() {
        try {
            http.stop();
        } catch (Exception e) {
            // Stopping a client that is no longer used: nothing to do but go on.
        }
    }
}
