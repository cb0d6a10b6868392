package io.ttlstreams.rules;

import static io.ttlstreams.rules.RuleBuilder.doc;
import static io.ttlstreams.rules.RuleBuilder.fieldRule;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FieldModeTest {

    private static final Instant EVENT_TIME = Instant.parse("2025-06-01T00:00:00Z");
    private static final Namespace NS = Namespace.parse("app.sessions");

    /** The decision of a field rule "s" on ttl in {@code format} for the document {@code {ttl: value}}. */
    private static ExpiryDecision evaluateTtl(FieldFormat format, String valueJson) {
        return evaluate(fieldRule("s", "ttl").format(format), "{ttl: " + valueJson + "}");
    }

    private static ExpiryDecision evaluate(RuleBuilder rule, String documentJson) {
        return rule.alone().evaluate(NS, doc(documentJson), EVENT_TIME);
    }

    @Test
    void shouldExpireAtDatePlusExpireAfterSeconds() {
        ExpiryDecision decision =
                evaluate(fieldRule("sessions", "expireAt"), "{_id: 1, expireAt: {$date: '2026-01-01T00:00:00Z'}}");

        assertThat(decision.expires()).isTrue();
        assertThat(decision.deadline()).isEqualTo(Instant.parse("2026-01-01T00:00:10Z"));
        assertThat(decision.rule()).isEqualTo("sessions");
        assertThat(decision.reason())
                .isEqualTo("field expireAt is a date (2026-01-01T00:00:00.000Z) + 10 s (rule sessions)");
        assertThat(decision.condition()).isEqualTo(doc("{expireAt: {$eq: {$date: '2026-01-01T00:00:00Z'}}}"));
        assertThat(decision.documentTtlIgnored()).isFalse();
    }

    @Test
    void shouldExpireAtTheDateItselfWithZeroSeconds() {
        ExpiryDecision decision = evaluate(
                fieldRule("s", "expireAt").expireAfterSeconds(0), "{expireAt: {$date: '2026-01-01T00:00:00.123Z'}}");

        assertThat(decision.deadline()).isEqualTo(Instant.parse("2026-01-01T00:00:00.123Z"));
    }

    @Test
    void shouldResolveDottedPathThroughSubdocumentsAndFilterOnTheNestedField() {
        ExpiryDecision decision = evaluate(
                fieldRule("s", "session.expiresAt"),
                "{session: {user: 'u', expiresAt: {$date: '2026-01-01T00:00:00Z'}}}");

        assertThat(decision.deadline()).isEqualTo(Instant.parse("2026-01-01T00:00:10Z"));
        assertThat(decision.condition())
                .isEqualTo(doc("{'session.expiresAt': {$eq: {$date: '2026-01-01T00:00:00Z'}}}"));
        assertThat(decision.reason()).startsWith("field session.expiresAt is a date");
    }

    @Test
    void shouldExpireArrayOnItsEarliestDateIgnoringOtherElements() {
        String json =
                "{expireAt: [{$date: '2026-03-01T00:00:00Z'}, 'soon', {$date: '2026-02-01T00:00:00Z'}, 5," + " null]}";

        ExpiryDecision decision = evaluate(fieldRule("s", "expireAt"), json);

        assertThat(decision.deadline()).isEqualTo(Instant.parse("2026-02-01T00:00:10Z"));
        assertThat(decision.condition())
                .isEqualTo(new BsonDocument(
                        "expireAt", new BsonDocument("$eq", doc(json).get("expireAt"))));
        assertThat(decision.reason())
                .isEqualTo(
                        "field expireAt is an array; its earliest is a date (2026-02-01T00:00:00.000Z) + 10 s (rule s)");
    }

    @Test
    void shouldExpireOnEarliestDateAmongSubdocumentsOfAnArray() {
        ExpiryDecision decision = evaluate(
                fieldRule("s", "logins.at"),
                "{logins: [{at: {$date: '2026-03-01T00:00:00Z'}}, {at: {$date: '2026-02-01T00:00:00Z'}}, {}]}");

        assertThat(decision.deadline()).isEqualTo(Instant.parse("2026-02-01T00:00:10Z"));
        // No single value was found, so the delete pins the earliest one, which MongoDB matches in any element.
        assertThat(decision.condition()).isEqualTo(doc("{'logins.at': {$eq: {$date: '2026-02-01T00:00:00Z'}}}"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{other: 1}                                  | field expireAt is missing (rule s)",
                "{expireAt: null}                            | field expireAt is null, not a date (rule s)",
                "{expireAt: '2026-01-01T00:00:00Z'}          | field expireAt is a string, not a date (rule s)",
                "{expireAt: {at: {$date: '2026-01-01T00:00:00Z'}}} | field expireAt is an object, not a date (rule s)",
                "{expireAt: []}                              | field expireAt is an array with no date (rule s)",
                "{expireAt: ['a', 1, [{$date: '2026-01-01T00:00:00Z'}]]} | field expireAt is an array with no date (rule s)",
                "{expireAt: {$timestamp: {t: 1, i: 1}}}      | field expireAt is a timestamp, not a date (rule s)",
                "{expireAt: NumberLong(1767225600)}          | field expireAt is a long, not a date"
                        + " (numbers count only with an epoch field format) (rule s)",
            })
    void shouldNeverExpireWithoutADate(String json, String reason) {
        ExpiryDecision decision = evaluate(fieldRule("s", "expireAt"), json);

        assertThat(decision).isEqualTo(ExpiryDecision.never(reason));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "epoch-seconds | 1767225600                  | 2026-01-01T00:00:10Z",
                "epoch-seconds | NumberLong(1767225600)      | 2026-01-01T00:00:10Z",
                "epoch-seconds | 1767225600.5                | 2026-01-01T00:00:10.500Z",
                "epoch-seconds | NumberDecimal('1767225600.25') | 2026-01-01T00:00:10.250Z",
                "epoch-millis  | NumberDecimal('1767225600123.4') | 2026-01-01T00:00:10.124Z",
                "epoch-millis  | NumberLong(1767225600000)   | 2026-01-01T00:00:10Z",
                "epoch-millis  | 1767225600123.0             | 2026-01-01T00:00:10.123Z",
                "epoch-seconds | 1767225600.001              | 2026-01-01T00:00:10.001Z",
                "epoch-seconds | 1767225600.0004             | 2026-01-01T00:00:10.001Z",
                "epoch-millis  | 1767225600123.4             | 2026-01-01T00:00:10.124Z",
                "epoch-millis  | {$date: '2026-01-01T00:00:00Z'} | 2026-01-01T00:00:10Z",
                "epoch-seconds | {$date: '2026-01-01T00:00:00Z'} | 2026-01-01T00:00:10Z",
            })
    void shouldReadNumbersAsEpochInstantsWithAnEpochFormat(String format, String value, String deadline) {
        ExpiryDecision decision = evaluateTtl(FieldFormat.fromConfigValue(format), value);

        assertThat(decision.deadline()).isEqualTo(Instant.parse(deadline));
        assertThat(decision.condition()).isEqualTo(doc("{ttl: {$eq: " + value + "}}"));
    }

    @Test
    void shouldSayHowAnEpochNumberWasRead() {
        ExpiryDecision decision = evaluateTtl(FieldFormat.EPOCH_SECONDS, "NumberLong(1767225600)");

        assertThat(decision.reason())
                .isEqualTo("field ttl is epoch-seconds 1767225600 (2026-01-01T00:00:00.000Z) + 10 s (rule s)");
    }

    @Test
    void shouldNotScheduleEpochSecondsThatLandPastYear9999WhenTheyAreMilliseconds() {
        ExpiryDecision decision = evaluateTtl(FieldFormat.EPOCH_SECONDS, "NumberLong(1767225600000)");

        assertThat(decision.expires()).isFalse();
        assertThat(decision.implausibleValue()).isTrue();
        assertThat(decision.reason())
                .contains("after year 9999")
                .contains("not scheduled")
                .contains("looks like epoch-millis");
    }

    @Test
    void shouldNotScheduleEpochMillisBefore1971WhenTheyAreSeconds() {
        ExpiryDecision decision = evaluateTtl(FieldFormat.EPOCH_MILLIS, "1767225600");

        assertThat(decision.expires()).isFalse();
        assertThat(decision.implausibleValue()).isTrue();
        assertThat(decision.reason())
                .isEqualTo("field ttl is epoch-millis 1767225600 (1970-01-21T10:53:45.600Z), before 1971, which no"
                        + " epoch deadline means; not scheduled; the value looks like epoch-seconds, which as"
                        + " milliseconds puts the deadline around 1970 (rule s)");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "epoch-seconds | -1                        | before 1971",
                "epoch-seconds | 0                         | before 1971",
                "epoch-seconds | 31535999                  | before 1971",
                "epoch-seconds | NumberLong(253402300800)  | after year 9999",
                "epoch-millis  | NumberLong(1590000000000) | more than 5 years before the document's change",
                "epoch-seconds | NumberDecimal('1590000000') | more than 5 years before the document's change",
            })
    void shouldNotScheduleAnEpochNumberNoDeadlineMeansWhenItIsImplausible(String format, String value, String problem) {
        ExpiryDecision decision = evaluateTtl(FieldFormat.fromConfigValue(format), value);

        assertThat(decision.expires()).isFalse();
        assertThat(decision.implausibleValue()).isTrue();
        assertThat(decision.reason()).contains(problem).endsWith("(rule s)");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "epoch-seconds | 31536000                  | 1971-01-01T00:00:10Z",
                "epoch-seconds | NumberLong(253402300799)  | +10000-01-01T00:00:09Z",
                "epoch-millis  | NumberLong(1590000000000) | 2020-05-20T18:40:10Z",
            })
    void shouldScheduleEpochNumbersAtTheEdgesOfPlausibilityWhenTheChangeIsRecentEnough(
            String format, String value, String deadline) {
        ExpiryDecision decision = fieldRule("s", "ttl")
                .format(FieldFormat.fromConfigValue(format))
                .alone()
                .evaluate(NS, doc("{ttl: " + value + "}"), Instant.parse("1972-01-01T00:00:00Z"));

        assertThat(decision.implausibleValue()).isFalse();
        assertThat(decision.deadline()).isEqualTo(Instant.parse(deadline));
    }

    @Test
    void shouldExpireADateOnAnEpochRuleHoweverOldAsAMongoDbTtlIndexDoes() {
        ExpiryDecision decision = evaluate(
                fieldRule("s", "ttl").format(FieldFormat.EPOCH_SECONDS), "{ttl: {$date: '1969-01-01T00:00:00Z'}}");

        assertThat(decision.expires()).isTrue();
        assertThat(decision.implausibleValue()).isFalse();
    }

    @Test
    void shouldNotFlagPlausibleEpochValues() {
        assertThat(evaluateTtl(FieldFormat.EPOCH_SECONDS, "1767225600").reason())
                .doesNotContain("looks like");
        assertThat(evaluateTtl(FieldFormat.EPOCH_MILLIS, "NumberLong(1767225600000)")
                        .reason())
                .doesNotContain("looks like");
    }

    @Test
    void shouldExpireEpochArrayOnItsEarliestNumber() {
        ExpiryDecision decision = evaluate(
                fieldRule("s", "ttl").format(FieldFormat.EPOCH_SECONDS), "{ttl: [1767225700, 'x', 1767225600]}");

        assertThat(decision.deadline()).isEqualTo(Instant.parse("2026-01-01T00:00:10Z"));
        assertThat(decision.reason()).contains("its earliest is epoch-seconds 1767225600");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "epoch-seconds | \"soon\"                 | field ttl is a string, not a date or an int, long, double"
                        + " or decimal",
                "epoch-seconds | NumberDecimal('NaN')     | field ttl is epoch-seconds NaN, not a finite number",
                "epoch-millis  | NumberDecimal('1E+400')  | field ttl is epoch-millis 1E+400, beyond the last"
                        + " representable date",
                "epoch-seconds | {$numberDouble: 'NaN'}   | field ttl is epoch-seconds NaN, not a finite number",
                "epoch-millis  | {$numberDouble: 'Infinity'} | field ttl is epoch-millis Infinity, not a finite number",
                "epoch-seconds | NumberLong('9223372036854775807') | field ttl is epoch-seconds 9223372036854775807,"
                        + " beyond the last representable date",
                "epoch-seconds | 1e17                     | field ttl is epoch-seconds 100000000000000000,"
                        + " beyond the last representable date",
                "epoch-seconds | ['x', null]              | field ttl is an array with no date or number",
            })
    void shouldNeverExpireOnNumbersThatAreNoInstant(String format, String value, String reason) {
        ExpiryDecision decision = evaluateTtl(FieldFormat.fromConfigValue(format), value);

        assertThat(decision).isEqualTo(ExpiryDecision.never(reason + " (rule s)"));
    }

    @Test
    void shouldNeverExpireWhenDeadlineArithmeticOverflows() {
        BsonDocument document = new BsonDocument("expireAt", new BsonDateTime(Long.MAX_VALUE - 5_000));

        ExpiryDecision decision = fieldRule("s", "expireAt").alone().evaluate(NS, document, EVENT_TIME);

        assertThat(decision.expires()).isFalse();
        assertThat(decision.reason()).endsWith("+ 10 s, beyond the last representable date (rule s)");
    }

    @Test
    void shouldNeverExpireWhenEpochMillisPlusSecondsOverflows() {
        BsonDocument document = new BsonDocument("ttl", new BsonInt64(Long.MAX_VALUE));

        ExpiryDecision decision = fieldRule("s", "ttl")
                .format(FieldFormat.EPOCH_MILLIS)
                .expireAfterSeconds(1)
                .alone()
                .evaluate(NS, document, EVENT_TIME);

        assertThat(decision.expires()).isFalse();
        assertThat(decision.reason()).contains("after year 9999");
    }

    @Test
    void shouldNotDependOnTheEventTime() {
        RuleBuilder rule = fieldRule("s", "expireAt");
        BsonDocument document = doc("{expireAt: {$date: '2026-01-01T00:00:00Z'}}");

        assertThat(rule.alone().evaluate(NS, document, Instant.EPOCH))
                .isEqualTo(rule.alone().evaluate(NS, document, EVENT_TIME));
    }
}
