package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.BoundedJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GuardDecisionTest {

    @Test
    void shouldRoundTripThroughTheControlRecordWhenWritten() {
        GuardDecision decision = new GuardDecision("sessions", true, "approval-1");

        assertThat(GuardDecision.of(BoundedJson.parse(decision.toJson()))).isEqualTo(decision);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"guardDecision\": {\"rule\": \"s\", \"decision\": \"delete-all\", \"id\": \"x\"}}",
                "{\"guardDecision\": {\"rule\": \"s\", \"decision\": \"approve\"}}",
                "{\"guardDecision\": {\"rule\": \"s\", \"decision\": \"approve\", \"id\": \"x\", \"more\": 1}}",
                "{\"guardDecision\": {\"rule\": \"$s\", \"decision\": \"approve\", \"id\": \"x\"}}",
                "{\"guardDecision\": {\"rule\": \"s\", \"decision\": \"approve\", \"id\": 7}}",
                "{\"guardDecision\": \"approve\"}",
                "{\"guardDecision\": {\"rule\": \"s\", \"decision\": \"approve\", \"id\": \"x\"}, \"ns\": 1}",
            })
    void shouldRefuseWhatIsNoWellFormedDecisionWhenParsed(String json) {
        assertThatThrownBy(() -> GuardDecision.of(BoundedJson.parse(json)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
