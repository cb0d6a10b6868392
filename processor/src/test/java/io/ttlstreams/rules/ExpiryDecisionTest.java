package io.ttlstreams.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class ExpiryDecisionTest {

    private static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void shouldDescribeADecisionThatDoesNotExpire() {
        ExpiryDecision decision = ExpiryDecision.never("why");

        assertThat(decision.expires()).isFalse();
        assertThat(decision.deadline()).isNull();
        assertThat(decision.rule()).isNull();
        assertThat(decision.base()).isNull();
        assertThat(decision.reason()).isEqualTo("why");
        assertThat(decision.condition()).isEmpty();
        assertThat(decision.documentTtlIgnored()).isFalse();
    }

    @Test
    void shouldCarryBaseOffsetAndDeadlineOfAnExpiringDecision() {
        ExpiryDecision decision = ExpiryDecision.expiring(
                "r", BASE, 10, true, BASE.plusSeconds(10).toEpochMilli(), new BsonDocument(), false, () -> "why");

        assertThat(decision.expires()).isTrue();
        assertThat(decision.base()).isEqualTo(BASE);
        assertThat(decision.offsetSeconds()).isEqualTo(10);
        assertThat(decision.offsetFromRule()).isTrue();
        assertThat(decision.deadline()).isEqualTo(BASE.plusSeconds(10));
    }

    @Test
    void shouldBuildTheReasonOnlyWhenAskedAndOnlyOnce() {
        AtomicInteger built = new AtomicInteger();
        ExpiryDecision decision = ExpiryDecision.never(
                () -> {
                    built.incrementAndGet();
                    return "why";
                },
                false);

        assertThat(built).hasValue(0);
        assertThat(decision.reason()).isEqualTo("why");
        assertThat(decision.reason()).isEqualTo("why");
        assertThat(built).hasValue(1);
    }

    @Test
    void shouldRequireAReasonAndACondition() {
        assertThatThrownBy(() -> ExpiryDecision.never((String) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> ExpiryDecision.expiring("r", BASE, 0, true, 0, null, false, () -> "why"))
                .isInstanceOf(NullPointerException.class);
    }
}
