package io.ttlstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class HealthTest {

    @ParameterizedTest
    @EnumSource(
            value = State.class,
            names = {"CREATED", "REBALANCING", "RUNNING", "PENDING_SHUTDOWN"})
    void shouldStayLiveWhileKafkaStreamsCanStillProcess(State state) {
        Health health = new Health(() -> state, Optional.empty());

        assertThat(health.live().up()).isTrue();
        assertThat(health.ready().up()).isEqualTo(state == State.RUNNING);
    }

    @ParameterizedTest
    @EnumSource(
            value = State.class,
            names = {"ERROR", "PENDING_ERROR", "NOT_RUNNING"})
    void shouldDieWhenKafkaStreamsStoppedForGood(State state) {
        Health.Report live = new Health(() -> state, Optional.empty()).live();

        assertThat(live.up()).isFalse();
        assertThat(live.body().status()).isEqualTo("DOWN");
        assertThat(live.body().state()).isEqualTo(state.toString());
        assertThat(live.reasons()).singleElement().asString().contains(state.toString());
    }

    @Test
    void shouldTellWhyItIsNotReady() {
        Health.Report ready = new Health(() -> State.REBALANCING, Optional.empty()).ready();

        assertThat(ready.body())
                .isEqualTo(new Health.Body(
                        "DOWN", "REBALANCING", java.util.List.of("Kafka Streams is REBALANCING, not RUNNING")));
    }

    @Test
    void shouldNotBeReadyAndSayWhyWhenTheGuardHoldsDocuments() {
        Health.Report ready =
                new Health(() -> State.RUNNING, Optional.empty(), () -> List.of("rule s holds 3")).ready();

        assertThat(ready.up()).isFalse();
        assertThat(ready.reasons()).containsExactly("rule s holds 3");
    }
}
