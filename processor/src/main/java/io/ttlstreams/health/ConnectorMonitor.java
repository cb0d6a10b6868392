package io.ttlstreams.health;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.ConnectorStatus;
import io.ttlstreams.connect.ManagedConnectors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the connectors the processor depends on through Kafka Connect's status API. A connector or task that
 * stops running is logged once, at ERROR with its trace summary when FAILED (a source task fails by design on a lost
 * resume token, and documents then silently stop being scheduled), exported as {@code ttl_connector_running} and
 * {@code ttl_connector_failures}, and makes the processor degraded ({@link Dependencies}), not unready: every instance
 * shares the connector, so no instance leaving its Service would help.
 *
 * <p>Kafka Connect never restarts a FAILED unit by itself, and the sink's task fails whenever MongoDB cannot be
 * written ({@code mongo.errors.tolerance=data}): the monitor restarts a connector's failed units, at once and then
 * after a pause doubling from {@value #FIRST_RESTART_PAUSE_MS} ms to {@value #MAX_RESTART_PAUSE_MS} ms while they keep
 * failing, exported as {@code ttl_connector_restarts_in_a_row}; and it tells {@link SinkOutage} when the sink failed.
 */
public final class ConnectorMonitor {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectorMonitor.class);

    static final String RUNNING_GAUGE = "ttl.connector.running";
    static final String FAILURES_GAUGE = "ttl.connector.failures";
    static final String RESTARTS_GAUGE = "ttl.connector.restarts.in.a.row";

    static final long FIRST_RESTART_PAUSE_MS = 1_000;
    static final long MAX_RESTART_PAUSE_MS = 120_000;

    /**
     * One connector as the last check saw it, and as the status endpoint shows it.
     *
     * @param name the connector's name
     * @param running whether it and all its tasks run
     * @param state its state; empty when its status could not be read
     * @param tasks each task as {@code id:STATE}
     * @param problems what is wrong with it; empty when it runs
     * @param failures its FAILED units (itself and its tasks); empty when its status could not be read
     */
    public record Described(
            String name,
            boolean running,
            Optional<String> state,
            List<String> tasks,
            List<String> problems,
            @JsonIgnore OptionalInt failures) {

        static Described of(String name, ConnectorStatus status) {
            return new Described(
                    name,
                    status.running(),
                    Optional.of(status.state()),
                    status.tasks().stream()
                            .map(task -> task.id() + ":" + task.state())
                            .toList(),
                    status.problems(),
                    OptionalInt.of(status.failures()));
        }

        static Described unavailable(String name, String why) {
            return new Described(name, false, Optional.empty(), List.of(), List.of(why), OptionalInt.empty());
        }
    }

    /** The restarts of one connector's failed units: how many in a row, and when the next may be. */
    private static final class Restarts {
        volatile int inARow;
        long notBeforeNanos;
    }

    private final ManagedConnectors connectors;
    private final SinkOutage sink;
    private final LongSupplier nanoClock;
    private final Map<String, Described> observed = new ConcurrentHashMap<>();
    private final Map<String, Restarts> restarts = new ConcurrentHashMap<>();

    /**
     * @param sink told when the sink connector ({@value ConnectorConfigs#SINK_NAME}) is found failed
     * @param nanoClock paces the restarts; {@link System#nanoTime} outside tests
     */
    public ConnectorMonitor(
            ManagedConnectors connectors, MeterRegistry registry, SinkOutage sink, LongSupplier nanoClock) {
        this.connectors = connectors;
        this.sink = sink;
        this.nanoClock = nanoClock;
        for (String name : connectors.names()) {
            Restarts pacing = new Restarts();
            restarts.put(name, pacing);
            Gauge.builder(RESTARTS_GAUGE, () -> pacing.inARow)
                    .description("Restarts of the connector's FAILED units the processor asked Kafka Connect for since"
                            + " it last ran through a whole pause; 0 while it runs")
                    .tag("connector", name)
                    .register(registry);
            observed.put(name, Described.unavailable(name, "connector " + name + " not checked yet"));
            Gauge.builder(RUNNING_GAUGE, () -> observed.get(name).running() ? 1 : 0)
                    .description("1 when the connector and all its tasks are RUNNING, else 0")
                    .tag("connector", name)
                    .register(registry);
            Gauge.builder(FAILURES_GAUGE, () -> {
                        OptionalInt failures = observed.get(name).failures();
                        return failures.isPresent() ? failures.getAsInt() : Double.NaN;
                    })
                    .description(
                            "FAILED units of the connector (itself and its tasks); NaN when its status is" + " unknown")
                    .tag("connector", name)
                    .register(registry);
        }
    }

    /** Reads every connector's status once; logs what changed, and restarts what failed when its pause is over. */
    public void check() throws InterruptedException {
        for (String name : connectors.names()) {
            Described now = observe(name);
            Described before = observed.put(name, now);
            report(name, before, now);
            int failures = now.failures().orElse(0);
            if (failures > 0 && name.equals(ConnectorConfigs.SINK_NAME)) {
                sink.failed();
            }
            pace(name, failures, now.running());
        }
    }

    /**
     * Restarts the connector's failed units when the pause after the previous restart is over, doubling the pause
     * while they keep failing; a connector that ran through a whole pause starts again from the first one.
     */
    private void pace(String name, int failures, boolean running) throws InterruptedException {
        Restarts pacing = restarts.get(name);
        long now = nanoClock.getAsLong();
        boolean pauseOver = now - pacing.notBeforeNanos >= 0;
        if (failures == 0) {
            if (running && pauseOver) {
                pacing.inARow = 0;
            }
            return;
        }
        if (pacing.inARow > 0 && !pauseOver) {
            return;
        }
        long pauseMs = Math.min(MAX_RESTART_PAUSE_MS, FIRST_RESTART_PAUSE_MS << Math.min(pacing.inARow, 20));
        try {
            connectors.connect().restartFailed(name);
        } catch (IOException e) {
            LOG.warn("Kafka Connect: could not restart the failed units of connector {}: {}", name, e.getMessage());
            return;
        }
        pacing.inARow++;
        pacing.notBeforeNanos = now + TimeUnit.MILLISECONDS.toNanos(pauseMs);
        LOG.warn(
                "Kafka Connect: restarted the failed units of connector {} (restart {} in a row; the next no sooner"
                        + " than {} ms from now)",
                name,
                pacing.inARow,
                pauseMs);
    }

    /** Why not every connector runs, one line per problem; empty when all run. */
    public List<String> problems() {
        return describe().stream()
                .flatMap(connector -> connector.problems().stream())
                .toList();
    }

    /** The last status of each connector, for the status endpoint. */
    public List<Described> describe() {
        return connectors.names().stream().map(observed::get).toList();
    }

    private Described observe(String name) throws InterruptedException {
        try {
            return connectors
                    .connect()
                    .status(name)
                    .map(status -> Described.of(name, status))
                    .orElseGet(() -> Described.unavailable(
                            name, "connector " + name + " does not exist at " + connectors.connectUrl()));
        } catch (IOException e) {
            return Described.unavailable(
                    name,
                    "Kafka Connect at " + connectors.connectUrl() + " cannot tell the status" + " of connector " + name
                            + ": " + e.getMessage());
        }
    }

    private static void report(String name, Described before, Described now) {
        List<String> fresh = new ArrayList<>(now.problems());
        fresh.removeAll(before.problems());
        for (String problem : fresh) {
            if (problem.contains(" is " + ConnectorStatus.FAILED)) {
                LOG.error("Kafka Connect: {}", problem);
            } else {
                LOG.warn("Kafka Connect: {}", problem);
            }
        }
        if (now.running() && !before.running()) {
            LOG.info("Kafka Connect: connector {} and its tasks are RUNNING", name);
        }
    }
}
