package io.ttlstreams.connect;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The connectors a processor depends on and watches: without them running, documents stop being scheduled (source)
 * or deleted (sink), and the processor is degraded ({@code /health/dependencies}).
 *
 * @param connect the client of the Kafka Connect cluster that runs them, with its credentials
 * @param names the connectors' names
 */
public record ManagedConnectors(ConnectRestClient connect, List<String> names) {

    public ManagedConnectors {
        Objects.requireNonNull(connect, "connect");
        names = List.copyOf(names);
    }

    /**
     * Creates or updates each of {@code connectors} at {@code connect}, retrying with a growing pause (0.5 s doubling
     * up to 5 s) while Connect cannot be reached or answers that it cannot serve now, for at most {@code timeout}
     * from the first attempt: a Connect that starts after the processor (docker compose) is waited for, one that
     * stays away or refuses a connector stops start-up.
     *
     * @param registered told the name of each connector once Connect accepted it
     * @return the connectors to watch
     * @throws IOException when Connect refuses a connector, or is still unavailable after {@code timeout}; the
     *     message says which and names the last failure
     */
    public static ManagedConnectors register(
            ConnectRestClient connect, ConnectorConfigs connectors, Duration timeout, Consumer<String> registered)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ConnectorDefinition connector : connectors.files().values()) {
            RetryPolicy<Object> retry = RetryPolicy.builder()
                    .handle(ConnectRestClient.UnavailableException.class)
                    .withBackoff(Duration.ofMillis(500), Duration.ofSeconds(5), 2)
                    .withJitter(0.2)
                    .withMaxRetries(-1)
                    // What is left of the timeout; Failsafe shortens the last pause to end within it.
                    .withMaxDuration(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))
                    .build();
            AtomicInteger attempts = new AtomicInteger();
            try {
                Failsafe.with(retry).run(() -> {
                    attempts.incrementAndGet();
                    connect.put(connector);
                });
            } catch (FailsafeException e) {
                Throwable cause = e.getCause();
                if (cause instanceof InterruptedException interrupted) {
                    throw interrupted;
                }
                if (cause instanceof ConnectRestClient.UnavailableException unavailable) {
                    throw new IOException(
                            "Kafka Connect was still unavailable after " + timeout.toMillis() + " ms (ttl.startup"
                                    + ".timeout.ms, " + attempts.get() + " attempts): " + unavailable.getMessage(),
                            unavailable);
                }
                if (cause instanceof IOException refused) {
                    throw refused;
                }
                throw e;
            }
            registered.accept(connector.name());
        }
        return new ManagedConnectors(
                connect,
                connectors.files().values().stream()
                        .map(ConnectorDefinition::name)
                        .toList());
    }

    /** Connect's REST URL without user info: what messages may show. */
    public String connectUrl() {
        return connect.url();
    }
}
