package io.ttlstreams.health;

import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams.State;

/**
 * Liveness and readiness, as Kubernetes probes and the compose healthcheck ask for them.
 *
 * <ul>
 *   <li><b>Live</b> unless Kafka Streams has stopped for good (ERROR, or shutting down or stopped without being
 *       asked): restarting the process is then the only cure. Restoring state, rebalancing and failed connectors
 *       are not reasons to restart it.</li>
 *   <li><b>Ready</b> when Kafka Streams is RUNNING, every connector it depends on (when it watches any) runs with
 *       all its tasks, and the blast-radius guard holds nothing for approval: only then are documents scheduled
 *       and deleted as configured.</li>
 * </ul>
 */
public final class Health {

    private static final Set<State> DEAD = Set.of(State.ERROR, State.PENDING_ERROR, State.NOT_RUNNING);

    private final Supplier<State> streamsState;
    private final Optional<ConnectorMonitor> connectors;
    private final Supplier<List<String>> holds;

    /**
     * @param streamsState Kafka Streams' current state
     * @param connectors the connectors to require for readiness; empty when none are watched
     */
    public Health(Supplier<State> streamsState, Optional<ConnectorMonitor> connectors) {
        this(streamsState, connectors, List::of);
    }

    /**
     * @param streamsState Kafka Streams' current state
     * @param connectors the connectors to require for readiness; empty when none are watched
     * @param holds why documents are held for approval, one reason per rule; empty when none are
     */
    public Health(Supplier<State> streamsState, Optional<ConnectorMonitor> connectors, Supplier<List<String>> holds) {
        this.streamsState = streamsState;
        this.connectors = connectors;
        this.holds = holds;
    }

    /** Serves liveness and readiness on {@code server}: 200 when up, 503 with the reasons when down. */
    public void register(OperationsServer server) {
        server.serve(OperationsServer.LIVE_PATH, request -> probe(live()));
        server.serve(OperationsServer.READY_PATH, request -> probe(ready()));
    }

    private static Response probe(Report report) {
        return Response.json(report.up() ? 200 : 503, report.body());
    }

    /** Liveness: down only when Kafka Streams stopped for good. */
    public Report live() {
        State state = streamsState.get();
        List<String> reasons = DEAD.contains(state)
                ? List.of("Kafka Streams is " + state + " and will not process again without a restart")
                : List.of();
        return new Report(state, reasons);
    }

    /** Readiness: up when Kafka Streams is RUNNING, every watched connector runs and nothing is held for approval. */
    public Report ready() {
        State state = streamsState.get();
        List<String> reasons = new ArrayList<>();
        if (state != State.RUNNING) {
            reasons.add("Kafka Streams is " + state + ", not RUNNING");
        }
        connectors.ifPresent(monitor -> reasons.addAll(monitor.problems()));
        reasons.addAll(holds.get());
        return new Report(state, reasons);
    }

    /**
     * One probe's answer.
     *
     * @param state Kafka Streams' state when asked
     * @param reasons why the probe fails; empty when it passes
     */
    public record Report(State state, List<String> reasons) {

        public boolean up() {
            return reasons.isEmpty();
        }

        /** The probe's JSON body. */
        public Body body() {
            return new Body(up() ? "UP" : "DOWN", state.toString(), reasons);
        }
    }

    /**
     * A probe's JSON body.
     *
     * @param status {@code UP} or {@code DOWN}
     * @param state Kafka Streams' state
     * @param reasons why the probe fails; empty when it passes
     */
    public record Body(String status, String state, List<String> reasons) {}
}
