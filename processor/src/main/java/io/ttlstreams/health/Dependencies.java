package io.ttlstreams.health;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.util.NamedThreadFactory;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.contract.Namespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the processor depends on but does not run, and every instance shares: the watched connectors (each unit not
 * RUNNING, as {@link ConnectorMonitor} last saw it) and the sources (a namespace whose source was last heard from
 * longer ago than {@code ttl.health.source.stale.ms}, as {@link SourceFreshness} last read it) and MongoDB's clock
 * (more than a few seconds off this processor's, as {@link MongoClock} last measured it). Any of them makes the
 * processor <em>degraded</em>, not unready: {@code /health/dependencies} answers 503 with the reasons, {@code
 * /v1/status} shows them, {@code ttl_dependencies_degraded} is 1, and each turn into or out of degraded is logged
 * once.
 *
 * <p>Once {@link #start started}, it checks them every {@code ttl.health.interval.ms} on a thread of its own, so that
 * probes and scrapes read the last observation and never wait.
 */
public final class Dependencies implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Dependencies.class);

    static final String DEGRADED_GAUGE = "ttl.dependencies.degraded";

    private final Optional<ConnectorMonitor> connectors;
    private final SourceFreshness sources;
    private final Optional<MongoClock> mongoClock;
    private final Optional<Duration> staleAfter;
    private final ScheduledExecutorService checks =
            Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("ttl-streams-health"));
    /** The problems the last {@link #checked()} logged; checks run one at a time. */
    private List<String> logged = List.of();

    /**
     * @param connectors the watched connectors; empty when none are
     * @param sources the sources' freshness
     * @param staleAfter how long a source may stay quiet before it counts as failed; empty when quiet sources are not
     *     judged (a source profile without heartbeats, where a quiet collection looks the same as a dead stream)
     * @param mongoClock MongoDB's clock against this processor's, measured on a thread of its own; empty without
     *     {@code ttl.mongodb.uri}
     */
    public Dependencies(
            Optional<ConnectorMonitor> connectors,
            SourceFreshness sources,
            Optional<Duration> staleAfter,
            Optional<MongoClock> mongoClock,
            MeterRegistry registry) {
        this.connectors = connectors;
        this.sources = sources;
        this.mongoClock = mongoClock;
        this.staleAfter = staleAfter;
        Gauge.builder(DEGRADED_GAUGE, () -> problems().isEmpty() ? 0 : 1)
                .description("1 when a watched connector does not run, a source went quiet or MongoDB's clock is off"
                        + " (/health/dependencies says which), else 0")
                .register(registry);
    }

    /** The watched connectors, as {@link ConnectorMonitor} last saw them; empty when none are watched. */
    public List<ConnectorMonitor.Described> connectors() {
        return connectors.map(ConnectorMonitor::describe).orElse(List.of());
    }

    /** The sources, and when each was last heard from. */
    public SourceFreshness sources() {
        return sources;
    }

    /** Why a dependency fails, one line per problem; empty when none does. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        connectors.ifPresent(monitor -> problems.addAll(monitor.problems()));
        mongoClock.flatMap(MongoClock::problem).ifPresent(problems::add);
        staleAfter.ifPresent(limit -> {
            for (Namespace namespace : sources.namespaces()) {
                OptionalDouble staleness = sources.staleness(namespace);
                if (staleness.isPresent() && staleness.getAsDouble() * 1000 > limit.toMillis()) {
                    problems.add("the source of " + namespace + " was last heard from " + staleness.getAsDouble()
                            + " s ago, more than " + OperationsOptions.HEALTH_SOURCE_STALE_MS_CONFIG + "="
                            + limit.toMillis());
                }
            }
        });
        return problems;
    }

    /** Starts checking at once, then every {@code interval}; {@link #close} stops. */
    public Dependencies start(Duration interval) {
        checks.scheduleWithFixedDelay(
                () -> {
                    try {
                        if (connectors.isPresent()) {
                            connectors.get().check();
                        }
                        sources.check();
                        checked();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        LOG.warn("Health check failed: {}", e.toString());
                    }
                },
                0,
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
        return this;
    }

    /** Stops checking, interrupting a check under way. */
    @Override
    public void close() {
        checks.shutdownNow();
    }

    /** Logs a turn into degraded (at WARN, with the reasons) or out of it (at INFO), after each check. */
    public void checked() {
        List<String> now = problems();
        if (!now.isEmpty() && logged.isEmpty()) {
            LOG.warn("Degraded: {} (the pods stay ready; see /health/dependencies)", String.join("; ", now));
        } else if (now.isEmpty() && !logged.isEmpty()) {
            LOG.info("No longer degraded: every watched connector runs and every source was heard from");
        }
        logged = now;
    }
}
