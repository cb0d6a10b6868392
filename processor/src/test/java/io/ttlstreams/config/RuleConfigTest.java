package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.assertRejectedNaming;
import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.rules.FieldFormat;
import io.ttlstreams.rules.TtlMode;
import io.ttlstreams.rules.TtlRule;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RuleConfigTest {

    private static final String SECONDS = "ttl.rule.sessions.expire.after.seconds";

    private static TtlRule rule(String... keyValues) {
        return config(keyValues).rules().rules().get(0);
    }

    @Test
    void shouldBuildAFieldRuleWithDefaults() {
        assertThat(rule())
                .isEqualTo(new TtlRule(
                        "sessions",
                        new NamespacePattern("app", "sessions"),
                        TtlMode.FIELD,
                        "expireAt",
                        0,
                        FieldFormat.DATE,
                        null,
                        null,
                        null,
                        null));
    }

    @Test
    void shouldBuildAFieldRuleWithEveryOption() {
        TtlRule rule = rule(
                "ttl.rule.sessions.namespace",
                "app.*",
                "ttl.source.topics",
                "app.sessions",
                "ttl.rule.sessions.field",
                "session.expiresAt",
                SECONDS,
                "3600",
                "ttl.rule.sessions.field.format",
                "epoch-millis",
                "ttl.rule.sessions.partial.filter",
                "{\"status\": {\"$in\": [\"active\", \"idle\"]}}");

        assertThat(rule.namespace()).isEqualTo(new NamespacePattern("app", null));
        assertThat(rule.field()).isEqualTo("session.expiresAt");
        assertThat(rule.expireAfterSeconds()).isEqualTo(3600);
        assertThat(rule.fieldFormat()).isEqualTo(FieldFormat.EPOCH_MILLIS);
        assertThat(rule.partialFilter().expression())
                .isEqualTo(BsonDocument.parse("{status: {$in: ['active', 'idle']}}"));
    }

    @Test
    void shouldBuildALastModifiedRule() {
        TtlRule rule = rule(
                "ttl.rule.sessions.mode",
                "last-modified",
                "ttl.rule.sessions.field",
                null,
                SECONDS,
                "10",
                "ttl.rule.sessions.document.ttl.field",
                "ttl",
                "ttl.rule.sessions.modified.field",
                "meta.updatedAt");

        assertThat(rule)
                .isEqualTo(new TtlRule(
                        "sessions",
                        new NamespacePattern("app", "sessions"),
                        TtlMode.LAST_MODIFIED,
                        null,
                        10,
                        FieldFormat.DATE,
                        null,
                        "ttl",
                        "meta.updatedAt",
                        null));
    }

    @Test
    void shouldAcceptCosmosDbsMinusOneDefaultForALastModifiedRuleWithADocumentTtlField() {
        TtlRule rule = rule(
                "ttl.rule.sessions.mode",
                "last-modified",
                "ttl.rule.sessions.field",
                null,
                SECONDS,
                "-1",
                "ttl.rule.sessions.document.ttl.field",
                "ttl");

        assertThat(rule.expireAfterSeconds()).isEqualTo(TtlRule.NO_DEFAULT);
        assertThat(rule.hasNoDefault()).isTrue();
    }

    @Test
    void shouldRefuseMinusOneWithoutADocumentTtlFieldOrBelowIt() {
        assertRejectedNaming(
                SECONDS, "ttl.rule.sessions.mode", "last-modified", "ttl.rule.sessions.field", null, SECONDS, "-1");
        assertRejectedNaming(
                SECONDS,
                "ttl.rule.sessions.mode",
                "last-modified",
                "ttl.rule.sessions.field",
                null,
                SECONDS,
                "-2",
                "ttl.rule.sessions.document.ttl.field",
                "ttl");
    }

    @Test
    void shouldTreatBlankOptionalOptionsAsUnset() {
        TtlRule rule = rule("ttl.rule.sessions.partial.filter", " ", "ttl.rule.sessions.document.ttl.field", "");

        assertThat(rule.partialFilter()).isNull();
        assertThat(rule.documentTtlField()).isNull();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"NaN", "-1", "1.5", "2147483648", "2147483647.5", "ten", "", "Infinity", "0x10"})
    void shouldRejectExpireAfterSecondsThatIsNotAWholeNumberInRange(String value) {
        assertRejectedNaming(SECONDS, SECONDS, value);
    }

    @Test
    void shouldRejectNonIntegerExpireAfterSecondsGivenAsObjects() {
        for (Object value : new Object[] {Double.NaN, 1.5, -20.0, 2147483648L}) {
            Map<String, Object> props = TestConfigs.props();
            props.put(SECONDS, value);
            assertThatThrownBy(() -> new TtlStreamsConfig(props))
                    .as("%s", value)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(SECONDS);
        }
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"3600.0", "3600", " 3600.00 ", "3.6e3"})
    void shouldReadAWholeNumberDoubleAsMongoDbDoesWhenExpireAfterSecondsIsOne(String value) {
        assertThat(rule(SECONDS, value).expireAfterSeconds()).isEqualTo(3600);
    }

    @Test
    void shouldAcceptAWholeNumberDoubleGivenAsAnObject() {
        Map<String, Object> props = TestConfigs.props();
        props.put(SECONDS, 20.0);
        assertThat(new TtlStreamsConfig(props).rules().rules().get(0).expireAfterSeconds())
                .isEqualTo(20);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"0", "0.0"})
    void shouldRefuseALastModifiedRuleThatExpiresEverythingAtOnceWhenExpireAfterSecondsIsZero(String zero) {
        assertThatThrownBy(() -> config(
                        "ttl.rule.sessions.mode", "last-modified", "ttl.rule.sessions.field", null, SECONDS, zero))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(SECONDS)
                .hasMessageContaining("expires every document the moment it is written");
    }

    @Test
    void shouldAcceptTheLargestExpireAfterSeconds() {
        assertThat(rule(SECONDS, "2147483647").expireAfterSeconds()).isEqualTo(Integer.MAX_VALUE);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "ttl.rule.sessions.namespace          | app",
                "ttl.rule.sessions.namespace          | '*.sessions'",
                "ttl.rule.sessions.mode               | ttl-index",
                "ttl.rule.sessions.field              | 'session..expiresAt'",
                "ttl.rule.sessions.field              | '$expireAt'",
                "ttl.rule.sessions.field.format       | seconds",
                "ttl.rule.sessions.partial.filter     | '{\"status\": '",
                "ttl.rule.sessions.partial.filter     | '[1, 2]'",
                "ttl.rule.sessions.partial.filter     | '{\"$nor\": [{\"a\": 1}]}'",
                "ttl.rule.sessions.partial.filter     | '{\"a\": {\"$regex\": \"x\"}}'",
            })
    void shouldRejectABadRuleOptionNamingIt(String option, String value) {
        assertRejectedNaming(option, option, value);
    }

    @Test
    void shouldNameTheUnsupportedOperator() {
        assertThatThrownBy(() -> config("ttl.rule.sessions.partial.filter", "{\"$nor\": [{\"a\": 1}]}"))
                .hasMessageContaining("ttl.rule.sessions.partial.filter")
                .hasMessageContaining("Unsupported partial filter operator $nor");
    }

    @Test
    void shouldNameTheRuleWhoseOptionFailsAmongSeveral() {
        assertRejectedNaming(
                "ttl.rule.carts.expire.after.seconds",
                "ttl.rules",
                "sessions,carts",
                "ttl.rule.carts.namespace",
                "shop.carts",
                "ttl.rule.carts.field",
                "at",
                "ttl.rule.carts.expire.after.seconds",
                "-5");
    }

    @Test
    void shouldRequireANamespace() {
        assertRejectedNaming("ttl.rule.sessions.namespace", "ttl.rule.sessions.namespace", null);
    }

    @ParameterizedTest(name = "field={0}")
    @ValueSource(strings = {"", " "})
    void shouldRequireAFieldInFieldMode(String blank) {
        assertRejectedNaming("ttl.rule.sessions.field", "ttl.rule.sessions.field", blank);
        assertRejectedNaming("ttl.rule.sessions.field", "ttl.rule.sessions.field", null);
    }

    @Test
    void shouldRequireExpireAfterSecondsInLastModifiedMode() {
        assertRejectedNaming(SECONDS, "ttl.rule.sessions.mode", "last-modified", "ttl.rule.sessions.field", null);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "ttl.rule.sessions.field         | expireAt",
                "ttl.rule.sessions.field.format  | epoch-seconds",
                "ttl.rule.sessions.field.format  | date",
            })
    void shouldRejectFieldModeOptionsInLastModifiedMode(String option, String value) {
        assertThatThrownBy(() -> config(
                        "ttl.rule.sessions.mode",
                        "last-modified",
                        SECONDS,
                        "10",
                        "ttl.rule.sessions.field",
                        null,
                        option,
                        value))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(option)
                .hasMessageContaining("Applies only when ttl.rule.sessions.mode is field");
    }

    @ParameterizedTest
    @ValueSource(strings = {"document.ttl.field", "modified.field"})
    void shouldRejectALastModifiedOptionInFieldMode(String option) {
        assertThatThrownBy(() -> config("ttl.rule.sessions." + option, "ttl"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions." + option)
                .hasMessageContaining("Applies only when ttl.rule.sessions.mode is last-modified");
    }

    @Test
    void shouldEvaluateTheConfiguredCosmosRuleAsDocumented() {
        TtlStreamsConfig config = config(
                "ttl.rule.sessions.mode",
                "last-modified",
                "ttl.rule.sessions.field",
                null,
                SECONDS,
                "10",
                "ttl.rule.sessions.document.ttl.field",
                "ttl");
        Instant changed = Instant.parse("2026-01-01T00:00:00Z");

        assertThat(config.rules()
                        .evaluate(Namespace.parse("app.sessions"), BsonDocument.parse("{ttl: NumberLong(20)}"), changed)
                        .deadline())
                .isEqualTo(changed.plusSeconds(20));
        assertThat(config.rules()
                        .evaluate(Namespace.parse("app.sessions"), BsonDocument.parse("{ttl: 20.5}"), changed)
                        .deadline())
                .isEqualTo(changed.plusSeconds(10));
    }

    @Test
    void shouldDocumentTheOptionsUnderTheirBareNames() {
        assertThat(RuleConfig.configDef().names())
                .containsExactly(
                        "namespace",
                        "mode",
                        "field",
                        "expire.after.seconds",
                        "field.format",
                        "partial.filter",
                        "document.ttl.field",
                        "modified.field",
                        "action",
                        "mark.field",
                        "delete.after.seconds",
                        "notice.before.seconds",
                        "expired.document",
                        "guard.max.due.on.arrival",
                        "guard.window.ms");
        assertThat(RuleConfig.prefix("sessions")).isEqualTo("ttl.rule.sessions.");
    }

    @Test
    void shouldTakeARulesGuardLimitFromItsOwnOptionsElseFromTheGlobalOnes() {
        TtlStreamsConfig config = config(
                "ttl.rules",
                "sessions,carts",
                "ttl.rule.carts.namespace",
                "shop.carts",
                "ttl.rule.carts.field",
                "at",
                "ttl.guard.window.ms",
                "30000",
                "ttl.rule.carts.guard.max.due.on.arrival",
                "0");

        assertThat(config.guardLimits())
                .containsEntry("sessions", new GuardLimit(1_000, java.time.Duration.ofSeconds(30)))
                .containsEntry("carts", new GuardLimit(0, java.time.Duration.ofSeconds(30)));
        assertThat(config.guardLimits().get("carts").enabled()).isFalse();
    }

    @Test
    void shouldRefuseAGuardWindowShorterThanASecondNamingIt() {
        assertRejectedNaming("ttl.rule.sessions.guard.window.ms", "ttl.rule.sessions.guard.window.ms", "999");
    }
}
