package io.ttlstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.http.Json;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class HealthTest {

    private static Health health(Supplier<State> state) {
        return new Health(state, List::of, List::of, List::of);
    }

    @ParameterizedTest
    @EnumSource(
            value = State.class,
            names = {"CREATED", "REBALANCING", "RUNNING", "PENDING_SHUTDOWN"})
    void shouldStayLiveWhileKafkaStreamsCanStillProcess(State state) {
        Health health = health(() -> state);

        assertThat(health.live().up()).isTrue();
        assertThat(health.ready().up()).isEqualTo(state == State.RUNNING);
    }

    @ParameterizedTest
    @EnumSource(
            value = State.class,
            names = {"ERROR", "PENDING_ERROR", "NOT_RUNNING"})
    void shouldDieWhenKafkaStreamsStoppedForGood(State state) {
        Health.Report live = health(() -> state).live();

        assertThat(live.up()).isFalse();
        assertThat(live.status()).isEqualTo("DOWN");
        assertThat(live.state()).isEqualTo(state);
        assertThat(live.reasons()).singleElement().asString().contains(state.toString());
    }

    @Test
    void shouldTellWhyItIsNotReadyWhenRebalancingBeforeItEverRan() {
        Health.Report ready = health(() -> State.REBALANCING).ready();

        assertThat(Json.write(ready))
                .isEqualTo("{\"status\": \"DOWN\", \"state\": \"REBALANCING\", \"reasons\": [\"Kafka Streams is"
                        + " REBALANCING and has not been RUNNING yet (restoring its stores)\"]}");
    }

    @Test
    void shouldStayReadyWhenRebalancingAfterItRanAndItsStoresAnswer() {
        AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
        Health health = health(state::get);
        assertThat(health.ready().up()).isTrue();

        state.set(State.REBALANCING);

        assertThat(health.ready().up()).isTrue();
    }

    @Test
    void shouldNotBeReadyWhenAnActiveTasksStoresCannotBeQueried() {
        Health.Report ready = new Health(
                        () -> State.RUNNING,
                        () -> List.of("the stores of partition 2 cannot be queried yet: restoring"),
                        List::of,
                        List::of)
                .ready();

        assertThat(ready.up()).isFalse();
        assertThat(ready.reasons()).containsExactly("the stores of partition 2 cannot be queried yet: restoring");
    }

    @Test
    void shouldNotBeReadyAndSayWhyWhenTheGuardHoldsDocuments() {
        Health.Report ready =
                new Health(() -> State.RUNNING, List::of, () -> List.of("rule s holds 3"), List::of).ready();

        assertThat(ready.up()).isFalse();
        assertThat(ready.reasons()).containsExactly("rule s holds 3");
    }

    @Test
    void shouldStayReadyAndReportDegradedWhenADependencyFails() {
        Health health = new Health(
                () -> State.RUNNING, List::of, List::of, () -> List.of("connector mongo-source-app is FAILED"));

        assertThat(health.ready().up()).isTrue();
        assertThat(Json.write(health.dependencies()))
                .isEqualTo("{\"status\": \"DEGRADED\", \"state\": \"RUNNING\","
                        + " \"reasons\": [\"connector mongo-source-app is FAILED\"]}");
    }
}
