package io.ttlstreams.health;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams.State;

/**
 * Liveness, readiness and the dependencies' health, as Kubernetes probes, the compose healthcheck and operators ask
 * for them.
 *
 * <ul>
 *   <li><b>Live</b> unless Kafka Streams has stopped for good (ERROR, or shutting down or stopped without being
 *       asked): restarting the process is then the only cure. Restoring state, rebalancing and failed connectors
 *       are not reasons to restart it.</li>
 *   <li><b>Ready</b> when this pod can do its own work: Kafka Streams is RUNNING, or REBALANCING after it was seen
 *       RUNNING (a cooperative rebalance keeps the tasks it retains processing), the stores of every active task
 *       answer queries, and the blast-radius guard holds nothing for approval.</li>
 *   <li><b>Degraded</b> when something every pod shares fails: a watched connector that does not run, a source not
 *       heard from ({@link Dependencies}). That is served apart, on {@value #DEPENDENCIES_PATH}: a shared failure
 *       taking every pod out of its Service, or stalling the rolling update that may be its fix, would cure
 *       nothing.</li>
 * </ul>
 */
public final class Health {

    /** The dependencies' health: 200 when none fails, 503 with the reasons when one does. */
    public static final String DEPENDENCIES_PATH = "/health/dependencies";

    private static final Set<State> DEAD = Set.of(State.ERROR, State.PENDING_ERROR, State.NOT_RUNNING);

    private final Supplier<State> streamsState;
    private final Supplier<List<String>> unqueryableStores;
    private final Supplier<List<String>> holds;
    private final Supplier<List<String>> dependencies;
    /** Whether Kafka Streams was seen RUNNING since start: before, a REBALANCING instance is restoring its stores. */
    private final AtomicBoolean ranOnce = new AtomicBoolean();

    /**
     * @param streamsState Kafka Streams' current state
     * @param unqueryableStores why some active task's stores cannot be queried, one reason per task; empty when all
     *     can
     * @param holds why documents are held for approval, one reason per rule; empty when none are
     * @param dependencies why a shared dependency fails, one reason per problem; empty when none does
     */
    public Health(
            Supplier<State> streamsState,
            Supplier<List<String>> unqueryableStores,
            Supplier<List<String>> holds,
            Supplier<List<String>> dependencies) {
        this.streamsState = streamsState;
        this.unqueryableStores = unqueryableStores;
        this.holds = holds;
        this.dependencies = dependencies;
    }

    /**
     * Serves liveness and readiness on {@code server}, 200 when up and 503 with the reasons when down, and the
     * dependencies' health, 200 or 503 with the reasons when degraded.
     */
    public void register(OperationsServer server) {
        server.serve(OperationsServer.LIVE_PATH, request -> probe(live()));
        server.serve(OperationsServer.READY_PATH, request -> probe(ready()));
        server.serve(DEPENDENCIES_PATH, request -> probe(dependencies()));
    }

    private static Response probe(Report report) {
        return Response.json(report.up() ? 200 : 503, report);
    }

    /** Liveness: down only when Kafka Streams stopped for good. */
    public Report live() {
        State state = streamsState.get();
        List<String> reasons = DEAD.contains(state)
                ? List.of("Kafka Streams is " + state + " and will not process again without a restart")
                : List.of();
        return new Report(state, reasons, Report.DOWN);
    }

    /** Readiness: up when this pod's Kafka Streams processes, its stores answer and nothing is held for approval. */
    public Report ready() {
        State state = state();
        List<String> reasons = new ArrayList<>();
        if (state == State.REBALANCING && !ranOnce.get()) {
            reasons.add("Kafka Streams is REBALANCING and has not been RUNNING yet (restoring its stores)");
        } else if (state != State.RUNNING && state != State.REBALANCING) {
            reasons.add("Kafka Streams is " + state + ", not RUNNING");
        } else {
            reasons.addAll(unqueryableStores.get());
        }
        reasons.addAll(holds.get());
        return new Report(state, reasons, Report.DOWN);
    }

    /** The shared dependencies: degraded when a watched connector does not run or a source went quiet. */
    public Report dependencies() {
        return new Report(state(), dependencies.get(), Report.DEGRADED);
    }

    private State state() {
        State state = streamsState.get();
        if (state == State.RUNNING) {
            ranOnce.set(true);
        }
        return state;
    }

    /**
     * One probe's answer, and its JSON body: {@code status} ({@code UP}, or {@value #DOWN} or {@value #DEGRADED}),
     * Kafka Streams' {@code state} and the {@code reasons}.
     *
     * @param state Kafka Streams' state when asked
     * @param reasons why the probe fails; empty when it passes
     * @param failing the status word when it fails: {@value #DOWN} or {@value #DEGRADED}
     */
    @JsonPropertyOrder({"status", "state", "reasons"})
    public record Report(
            State state, List<String> reasons, @JsonIgnore String failing) {

        /** A probe of this pod's own health that fails. */
        public static final String DOWN = "DOWN";
        /** A probe of a shared dependency that fails. */
        public static final String DEGRADED = "DEGRADED";

        public boolean up() {
            return reasons.isEmpty();
        }

        /** {@code UP}, or the status word when it fails. */
        @JsonProperty
        public String status() {
            return up() ? "UP" : failing;
        }
    }
}
