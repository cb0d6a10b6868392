package io.ttlstreams.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class ExpiryDecisionTest {

    private static final Instant DEADLINE = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void shouldCarryOnlyAReasonWhenNeverExpiring() {
        ExpiryDecision decision = ExpiryDecision.never("why");

        assertThat(decision.expires()).isFalse();
        assertThat(decision.deadline()).isNull();
        assertThat(decision.rule()).isNull();
        assertThat(decision.reason()).isEqualTo("why");
        assertThat(decision.condition()).isEmpty();
        assertThat(decision.documentTtlIgnored()).isFalse();
    }

    @Test
    void shouldRejectAnExpiringDecisionWithoutDeadlineOrRule() {
        assertThatThrownBy(() -> new ExpiryDecision(true, null, "r", "why", new BsonDocument(), false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExpiryDecision(true, DEADLINE, null, "why", new BsonDocument(), false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectANonExpiringDecisionWithDeadlineRuleOrCondition() {
        assertThatThrownBy(() -> new ExpiryDecision(false, DEADLINE, null, "why", new BsonDocument(), false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() ->
                        new ExpiryDecision(false, null, null, "why", new BsonDocument("a", new BsonInt32(1)), false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRequireAReasonAndACondition() {
        assertThatThrownBy(() -> ExpiryDecision.never(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ExpiryDecision(true, DEADLINE, "r", "why", null, false))
                .isInstanceOf(NullPointerException.class);
    }
}
