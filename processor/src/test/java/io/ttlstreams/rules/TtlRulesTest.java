package io.ttlstreams.rules;

import static io.ttlstreams.rules.RuleBuilder.doc;
import static io.ttlstreams.rules.RuleBuilder.fieldRule;
import static io.ttlstreams.rules.RuleBuilder.lastModifiedRule;
import static io.ttlstreams.rules.RuleBuilder.rules;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TtlRulesTest {

    private static final Instant EVENT_TIME = Instant.parse("2026-01-01T00:00:00Z");
    private static final Namespace NS = Namespace.parse("app.sessions");
    private static final String EXPIRING = "{expireAt: {$date: '2026-01-01T00:01:00Z'}, status: 'active', ttl: 5}";

    @Test
    void shouldNeverExpireInANamespaceNoRuleCovers() {
        TtlRules rules = fieldRule("s", "expireAt").alone();

        assertThat(rules.evaluate(Namespace.parse("app.users"), doc(EXPIRING), EVENT_TIME))
                .isEqualTo(ExpiryDecision.never("no rule for namespace app.users"));
    }

    @Test
    void shouldApplyADatabaseWideRuleToEachCollection() {
        TtlRules rules = fieldRule("all", "expireAt").namespace("app.*").alone();

        assertThat(rules.evaluate(Namespace.parse("app.users"), doc(EXPIRING), EVENT_TIME)
                        .rule())
                .isEqualTo("all");
    }

    @Test
    void shouldLetTheEarliestDeadlineWinAndRecordItsRule() {
        TtlRules rules = rules(
                fieldRule("by-date", "expireAt").expireAfterSeconds(0),
                lastModifiedRule("safety-net").expireAfterSeconds(30),
                fieldRule("other-namespace", "expireAt").namespace("app.users").expireAfterSeconds(0));

        ExpiryDecision decision = rules.evaluate(NS, doc(EXPIRING), EVENT_TIME);

        assertThat(decision.rule()).isEqualTo("safety-net");
        assertThat(decision.deadline()).isEqualTo(EVENT_TIME.plusSeconds(30));
        assertThat(decision.condition()).as("only the winner's condition").isEmpty();
    }

    @Test
    void shouldRecordTheFieldRuleWhenItsDeadlineIsEarlier() {
        TtlRules rules = rules(
                lastModifiedRule("safety-net").expireAfterSeconds(3600),
                fieldRule("by-date", "expireAt").expireAfterSeconds(0));

        ExpiryDecision decision = rules.evaluate(NS, doc(EXPIRING), EVENT_TIME);

        assertThat(decision.rule()).isEqualTo("by-date");
        assertThat(decision.condition()).isEqualTo(doc("{expireAt: {$eq: {$date: '2026-01-01T00:01:00Z'}}}"));
    }

    @Test
    void shouldBreakTiesByConfigurationOrder() {
        TtlRules rules = rules(fieldRule("first", "expireAt"), fieldRule("second", "expireAt"));

        assertThat(rules.evaluate(NS, doc(EXPIRING), EVENT_TIME).rule()).isEqualTo("first");
    }

    @Test
    void shouldExplainEachRuleWhenNoneExpires() {
        TtlRules rules = rules(
                fieldRule("by-date", "missing"),
                fieldRule("filtered", "expireAt").filter("{status: 'closed'}"),
                lastModifiedRule("cosmos").documentTtlField("ttl"),
                fieldRule("elsewhere", "expireAt").namespace("app.users"));

        ExpiryDecision decision = rules.evaluate(NS, doc("{expireAt: 'soon', status: 'active', ttl: -1}"), EVENT_TIME);

        assertThat(decision.expires()).isFalse();
        assertThat(decision.reason())
                .isEqualTo("field missing is missing (rule by-date); "
                        + "partial filter {\"status\": \"closed\"} does not match (rule filtered); "
                        + "field ttl is -1, which never expires (rule cosmos)");
    }

    @Test
    void shouldNotScheduleADocumentOutsideThePartialFilter() {
        TtlRules rules = fieldRule("s", "expireAt").filter("{status: 'closed'}").alone();

        ExpiryDecision decision = rules.evaluate(NS, doc(EXPIRING), EVENT_TIME);

        assertThat(decision.expires()).isFalse();
        assertThat(decision.reason()).contains("does not match");
    }

    @Test
    void shouldRecheckThePartialFilterInTheDeleteCondition() {
        TtlRules rules = fieldRule("s", "expireAt")
                .filter("{status: {$in: ['active', 'idle']}}")
                .alone();

        ExpiryDecision decision = rules.evaluate(NS, doc(EXPIRING), EVENT_TIME);

        assertThat(decision.condition())
                .isEqualTo(doc("{expireAt: {$eq: {$date: '2026-01-01T00:01:00Z'}},"
                        + " $and: [{status: {$in: ['active', 'idle']}}]}"));
    }

    @Test
    void shouldCombineDocumentTtlAndPartialFilterConditions() {
        TtlRules rules = lastModifiedRule("c")
                .documentTtlField("ttl")
                .filter("{status: 'active'}")
                .alone();

        ExpiryDecision decision = rules.evaluate(NS, doc(EXPIRING), EVENT_TIME);

        assertThat(decision.condition()).isEqualTo(doc("{ttl: {$eq: 5}, $and: [{status: 'active'}]}"));
    }

    @Test
    void shouldCarryOnlyThePartialFilterForALastModifiedRuleWithoutTtlField() {
        TtlRules rules = lastModifiedRule("c").filter("{status: 'active'}").alone();

        assertThat(rules.evaluate(NS, doc(EXPIRING), EVENT_TIME).condition())
                .isEqualTo(doc("{$and: [{status: 'active'}]}"));
    }

    @Test
    void shouldNeverExpireWithoutAFullDocument() {
        TtlRules rules = lastModifiedRule("c").alone();

        assertThat(rules.evaluate(NS, null, EVENT_TIME))
                .isEqualTo(ExpiryDecision.never("the change event carries no full document"));
    }

    @Test
    void shouldFollowTheLatestVersionOfTheDocument() {
        TtlRules rules = fieldRule("s", "expireAt").alone();

        ExpiryDecision first = rules.evaluate(NS, doc("{expireAt: {$date: '2026-01-01T00:00:00Z'}}"), EVENT_TIME);
        ExpiryDecision extended = rules.evaluate(NS, doc("{expireAt: {$date: '2027-01-01T00:00:00Z'}}"), EVENT_TIME);
        ExpiryDecision removed = rules.evaluate(NS, doc("{}"), EVENT_TIME);

        assertThat(first.deadline()).isEqualTo(Instant.parse("2026-01-01T00:00:10Z"));
        assertThat(extended.deadline()).isEqualTo(Instant.parse("2027-01-01T00:00:10Z"));
        assertThat(removed.expires()).isFalse();
    }

    @ParameterizedTest(name = "_id: {0}")
    @ValueSource(
            strings = {
                "'d1'",
                "{$oid: '5f1b2c3d4e5f6a7b8c9d0e1f'}",
                "NumberLong(7)",
                "{tenant: 't', n: 1}",
                "{$binary: {base64: 'AQID', subType: '04'}}"
            })
    void shouldDecideTheSameWhateverTheDocumentKey(String id) {
        TtlRules rules = rules(
                fieldRule("s", "expireAt").filter("{status: 'active'}"),
                lastModifiedRule("c").documentTtlField("ttl"));
        BsonDocument withoutKey = doc(EXPIRING);
        BsonDocument withKey = doc("{_id: " + id + "}");
        withoutKey.forEach(withKey::append);

        ExpiryDecision decision = rules.evaluate(NS, withKey, EVENT_TIME);

        assertThat(decision).isEqualTo(rules.evaluate(NS, withoutKey, EVENT_TIME));
        assertThat(decision.condition().keySet()).doesNotContain("_id");
    }

    @Test
    void shouldBeRepeatableAndIsolateEachDecisionsCondition() {
        TtlRules rules = fieldRule("s", "expireAt").filter("{status: 'active'}").alone();
        BsonDocument document = doc(EXPIRING);

        ExpiryDecision first = rules.evaluate(NS, document, EVENT_TIME);
        first.condition().put("_id", new BsonInt32(1));
        first.condition().getArray("$and").get(0).asDocument().put("status", new BsonInt32(2));
        ExpiryDecision second = rules.evaluate(NS, document, EVENT_TIME);

        assertThat(second.condition())
                .isEqualTo(doc("{expireAt: {$eq: {$date: '2026-01-01T00:01:00Z'}}, $and: [{status: 'active'}]}"));
        assertThat(document).isEqualTo(doc(EXPIRING));
    }

    @Test
    void shouldReportAnIgnoredDocumentTtlEvenWhenAnotherRuleWins() {
        TtlRules rules = rules(
                fieldRule("by-date", "expireAt").expireAfterSeconds(0),
                lastModifiedRule("cosmos").expireAfterSeconds(3600).documentTtlField("ttl"));

        ExpiryDecision decision =
                rules.evaluate(NS, doc("{expireAt: {$date: '2026-01-01T00:01:00Z'}, ttl: 'bad'}"), EVENT_TIME);

        assertThat(decision.rule()).isEqualTo("by-date");
        assertThat(decision.documentTtlIgnored()).isTrue();
    }

    @Test
    void shouldRejectTwoRulesWithOneName() {
        assertThatThrownBy(() -> rules(fieldRule("s", "a"), lastModifiedRule("s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("named s");
    }

    @Test
    void shouldListRulesInConfigurationOrder() {
        TtlRule first = fieldRule("b", "x").build();
        TtlRule second = fieldRule("a", "x").build();

        assertThat(new TtlRules(List.of(first, second)).rules()).containsExactly(first, second);
    }
}
