package io.ttlstreams.rules;

import static io.ttlstreams.rules.RuleBuilder.doc;
import static io.ttlstreams.rules.RuleBuilder.lastModifiedRule;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LastModifiedModeTest {

    private static final Instant EVENT_TIME = Instant.parse("2026-01-01T00:00:00Z");
    private static final Namespace NS = Namespace.parse("app.sessions");

    /** The Cosmos DB setup of the brief: a collection default of 10 s and a per-document "ttl" field. */
    private static ExpiryDecision withTtlField(String documentJson) {
        return withTtlFieldAt(EVENT_TIME, documentJson);
    }

    private static ExpiryDecision withTtlFieldAt(Instant eventTime, String documentJson) {
        return lastModifiedRule("cosmos")
                .expireAfterSeconds(10)
                .documentTtlField("ttl")
                .alone()
                .evaluate(NS, doc(documentJson), eventTime);
    }

    @Test
    void shouldExpireAtEventTimePlusDefaultWithoutADocumentTtlField() {
        ExpiryDecision decision = lastModifiedRule("cosmos").alone().evaluate(NS, doc("{ttl: 20}"), EVENT_TIME);

        assertThat(decision.deadline()).isEqualTo(EVENT_TIME.plusSeconds(10));
        assertThat(decision.rule()).isEqualTo("cosmos");
        assertThat(decision.condition()).isEmpty();
        assertThat(decision.reason())
                .isEqualTo("last modified 2026-01-01T00:00:00.000Z + 10 s (rule cosmos)"
                        + LastModifiedExpiry.NO_WITNESS_WARNING);
    }

    @ParameterizedTest(name = "ttl: {0}")
    @ValueSource(strings = {"20.0", "NumberInt(20)", "NumberLong(20)"})
    void shouldHonourAValidDocumentTtl(String ttl) {
        ExpiryDecision decision = withTtlField("{ttl: " + ttl + "}");

        assertThat(decision.deadline()).isEqualTo(EVENT_TIME.plusSeconds(20));
        assertThat(decision.documentTtlIgnored()).isFalse();
        assertThat(decision.condition()).isEqualTo(doc("{ttl: {$eq: " + ttl + "}}"));
        assertThat(decision.reason())
                .isEqualTo("last modified 2026-01-01T00:00:00.000Z + 20 s from field ttl (rule cosmos)"
                        + LastModifiedExpiry.NO_WITNESS_WARNING);
    }

    @ParameterizedTest(name = "ttl: {0}")
    @ValueSource(
            strings = {
                "20.5",
                "NumberLong(2147483649)",
                "0",
                "-2",
                "-1.5",
                "'20'",
                "null",
                "true",
                "{$numberDouble: 'NaN'}",
                "{$numberDouble: 'Infinity'}",
                "NumberDecimal('20')",
                "[20]"
            })
    void shouldIgnoreAnInvalidDocumentTtlAndApplyTheDefault(String ttl) {
        ExpiryDecision decision = withTtlField("{ttl: " + ttl + "}");

        assertThat(decision.deadline()).isEqualTo(EVENT_TIME.plusSeconds(10));
        assertThat(decision.documentTtlIgnored()).isTrue();
        assertThat(decision.condition()).isEqualTo(doc("{ttl: {$eq: " + ttl + "}}"));
        assertThat(decision.reason())
                .contains("+ 10 s by default; field ttl holds")
                .contains("ignored because a TTL must be a positive int or -1");
    }

    @Test
    void shouldShowTheIgnoredValueInTheReason() {
        assertThat(withTtlField("{ttl: 20.5}").reason())
                .isEqualTo("last modified 2026-01-01T00:00:00.000Z + 10 s"
                        + " by default; field ttl holds a double (20.5), ignored because a TTL must be a positive int or -1"
                        + " (rule cosmos)" + LastModifiedExpiry.NO_WITNESS_WARNING);
    }

    @ParameterizedTest(name = "ttl: {0}")
    @ValueSource(strings = {"-1", "NumberLong(-1)", "-1.0"})
    void shouldNeverExpireWithDocumentTtlMinusOne(String ttl) {
        ExpiryDecision decision = withTtlField("{ttl: " + ttl + "}");

        assertThat(decision).isEqualTo(ExpiryDecision.never("field ttl is -1, which never expires (rule cosmos)"));
    }

    @Test
    void shouldApplyTheDefaultAndRequireAbsenceWhenTheDocumentHasNoTtl() {
        ExpiryDecision decision = withTtlField("{other: 1}");

        assertThat(decision.deadline()).isEqualTo(EVENT_TIME.plusSeconds(10));
        assertThat(decision.documentTtlIgnored()).isFalse();
        assertThat(decision.condition()).isEqualTo(doc("{ttl: {$exists: false}}"));
    }

    @Test
    void shouldAcceptTheLargestInt32Ttl() {
        assertThat(withTtlField("{ttl: 2147483647}").deadline()).isEqualTo(EVENT_TIME.plusSeconds(2147483647L));
    }

    @Test
    void shouldReadADottedDocumentTtlField() {
        ExpiryDecision decision = lastModifiedRule("c")
                .documentTtlField("meta.ttl")
                .alone()
                .evaluate(NS, doc("{meta: {ttl: NumberInt(30)}}"), EVENT_TIME);

        assertThat(decision.deadline()).isEqualTo(EVENT_TIME.plusSeconds(30));
        assertThat(decision.condition()).isEqualTo(doc("{'meta.ttl': {$eq: NumberInt(30)}}"));
    }

    @Test
    void shouldIgnoreSeveralTtlValuesFoundThroughAnArrayAndPinOnlyTheirPresence() {
        ExpiryDecision decision = lastModifiedRule("c")
                .documentTtlField("meta.ttl")
                .alone()
                .evaluate(NS, doc("{meta: [{ttl: 30}, {ttl: 40}]}"), EVENT_TIME);

        assertThat(decision.deadline()).isEqualTo(EVENT_TIME.plusSeconds(10));
        assertThat(decision.documentTtlIgnored()).isTrue();
        assertThat(decision.condition()).isEqualTo(doc("{'meta.ttl': {$exists: true}}"));
        assertThat(decision.reason()).contains("holds several values");
    }

    @Test
    void shouldRecomputeFromEachEventTime() {
        BsonDocument document = doc("{ttl: 20}");
        TtlRules rules = lastModifiedRule("cosmos").documentTtlField("ttl").alone();

        assertThat(rules.evaluate(NS, document, EVENT_TIME.plusSeconds(100)).deadline())
                .isEqualTo(EVENT_TIME.plusSeconds(120));
    }

    @Test
    void shouldNeverExpireWhenTheDeadlineIsBeyondTheLastRepresentableDate() {
        ExpiryDecision decision = withTtlFieldAt(Instant.MAX, "{ttl: 0}");

        assertThat(decision.expires()).isFalse();
        assertThat(decision.documentTtlIgnored()).isTrue();
        assertThat(decision.reason()).contains("beyond the last representable date");
    }

    @Test
    void shouldPinTheRenewalWitnessSoThatAnUnseenModificationMakesTheDeleteMiss() {
        TtlRules rules = lastModifiedRule("cosmos")
                .expireAfterSeconds(10)
                .modifiedField("meta.version")
                .alone();

        ExpiryDecision decision = rules.evaluate(NS, doc("{meta: {version: NumberLong(7)}}"), EVENT_TIME);

        assertThat(decision.deadline()).isEqualTo(EVENT_TIME.plusSeconds(10));
        assertThat(decision.condition()).isEqualTo(doc("{'meta.version': {$eq: NumberLong(7)}}"));
        assertThat(decision.reason()).doesNotContain("without modified.field");
        assertThat(rules.evaluate(NS, doc("{}"), EVENT_TIME).condition())
                .isEqualTo(doc("{'meta.version': {$exists: false}}"));
    }

    @Test
    void shouldPinAWitnessHoldingAnOperatorAsAValueNeverAsAnOperator() {
        ExpiryDecision decision = lastModifiedRule("cosmos")
                .expireAfterSeconds(10)
                .modifiedField("version")
                .documentTtlField("ttl")
                .alone()
                .evaluate(NS, doc("{version: {$exists: true}, ttl: {$ne: null}}"), EVENT_TIME);

        assertThat(decision.condition()).isEqualTo(doc("{version: {$eq: {$exists: true}}, ttl: {$eq: {$ne: null}}}"));
    }

    @Test
    void shouldCountAResyncFromTheWitnessDateAndAChangeEventFromItsOwnTime() {
        TtlRules rules = lastModifiedRule("cosmos")
                .expireAfterSeconds(10)
                .modifiedField("updatedAt")
                .alone();
        BsonDocument document = doc("{updatedAt: {$date: '2025-12-31T23:59:00Z'}}");
        Instant readAt = EVENT_TIME.plusSeconds(3600);

        ExpiryDecision resync = rules.evaluateResync(NS, document, readAt);
        ExpiryDecision changed = rules.evaluate(NS, document, readAt);

        assertThat(resync.base()).isEqualTo(Instant.parse("2025-12-31T23:59:00Z"));
        assertThat(resync.deadline()).isEqualTo(Instant.parse("2025-12-31T23:59:10Z"));
        assertThat(changed.base()).isEqualTo(readAt);
        assertThat(rules.evaluateResync(NS, doc("{updatedAt: 'not a date'}"), readAt)
                        .base())
                .as("no date to count from: the read time")
                .isEqualTo(readAt);
    }

    @Test
    void shouldTellWhetherTheOffsetIsTheRulesOrTheDocuments() {
        assertThat(withTtlField("{ttl: 20}").offsetFromRule()).isFalse();
        assertThat(withTtlField("{ttl: 'x'}").offsetFromRule()).isTrue();
        assertThat(withTtlField("{}").offsetFromRule()).isTrue();
        assertThat(withTtlField("{ttl: 20}").base()).isEqualTo(EVENT_TIME);
        assertThat(withTtlField("{ttl: 20}").offsetSeconds()).isEqualTo(20);
    }

    /** Cosmos DB's container default of -1: TTL on, no default. */
    private static ExpiryDecision withoutDefault(String documentJson) {
        return lastModifiedRule("cosmos")
                .expireAfterSeconds(TtlRule.NO_DEFAULT)
                .documentTtlField("ttl")
                .alone()
                .evaluate(NS, doc(documentJson), EVENT_TIME);
    }

    @Test
    void shouldExpireOnlyDocumentsCarryingTheirOwnTtlWhenTheDefaultIsMinusOne() {
        ExpiryDecision own = withoutDefault("{ttl: NumberInt(20)}");
        assertThat(own.deadline()).isEqualTo(EVENT_TIME.plusSeconds(20));
        assertThat(own.condition()).isEqualTo(doc("{ttl: {$eq: NumberInt(20)}}"));

        ExpiryDecision none = withoutDefault("{}");
        assertThat(none.expires()).isFalse();
        assertThat(none.reason()).contains("no default TTL").contains("field ttl is missing");

        ExpiryDecision invalid = withoutDefault("{ttl: 'soon'}");
        assertThat(invalid.expires()).isFalse();
        assertThat(invalid.documentTtlIgnored()).isTrue();

        assertThat(withoutDefault("{ttl: NumberInt(-1)}").expires()).isFalse();
    }

    @Test
    void shouldRefuseMinusOneWithoutADocumentTtlField() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> lastModifiedRule("cosmos")
                        .expireAfterSeconds(TtlRule.NO_DEFAULT)
                        .alone())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1 in last-modified mode with a document TTL field");
    }
}
