package io.ttlstreams.health;

import io.ttlstreams.http.ExchangeThreads;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the dependencies every {@code ttl.health.interval.ms} on a thread of its own: the connectors' status and the
 * sources' freshness, so that probes and scrapes read the last observation and never wait; then logs a turn of
 * {@link Dependencies} into or out of degraded.
 */
public final class HealthChecks implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HealthChecks.class);

    private final ScheduledExecutorService checks =
            Executors.newSingleThreadScheduledExecutor(ExchangeThreads.daemon("ttl-streams-health"));

    /** Starts checking at once, then every {@code interval}. */
    public HealthChecks(
            Optional<ConnectorMonitor> connectors,
            SourceFreshness freshness,
            Dependencies dependencies,
            Duration interval) {
        checks.scheduleWithFixedDelay(
                () -> {
                    try {
                        if (connectors.isPresent()) {
                            connectors.get().check();
                        }
                        freshness.check();
                        dependencies.checked();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        LOG.warn("Health check failed: {}", e.toString());
                    }
                },
                0,
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Stops checking, interrupting a check under way. */
    @Override
    public void close() {
        checks.shutdownNow();
    }
}
