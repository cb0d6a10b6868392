package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.BoundedJson;
import org.apache.kafka.common.config.ConfigException;
import org.bson.json.JsonParseException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PartialFilterDepthTest {

    private static final String FILTER = "ttl.rule.sessions.partial.filter";

    /** {@code {"a": {"a": ... {"a": 1} ...}}}, {@code depth} documents deep. */
    private static String nestedDocuments(int depth) {
        return "{\"a\": ".repeat(depth - 1) + "{\"a\": 1}" + "}".repeat(depth - 1);
    }

    /** {@code {"$and": [{"$and": [ ... {"a": 1} ...]}]}}: each level a document and an array. */
    private static String nestedAnds(int levels) {
        return "{\"$and\": [".repeat(levels) + "{\"a\": 1}" + "]}".repeat(levels);
    }

    @Test
    void shouldRefuseATwentyThousandDeepFilterNamingTheOption() {
        String deep = nestedDocuments(20_000);

        assertThatThrownBy(() -> config(FILTER, deep))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(FILTER)
                .hasMessageContaining("nests deeper than 100 levels")
                .hasMessageContaining("(" + deep.length() + " characters)")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(500));
    }

    @Test
    void shouldRefuseDeepArraysAndScopesToo() {
        assertThatThrownBy(
                        () -> BoundedJson.parse("{\"a\": " + "[".repeat(20_000) + "]".repeat(20_000) + "}", 100, false))
                .isInstanceOf(JsonParseException.class)
                .hasMessageContaining("100 levels");
        String deepScope = "{\"f\": {\"$code\": \"x\", \"$scope\": " + nestedDocuments(20_000) + "}}";
        assertThatThrownBy(() -> BoundedJson.parse(deepScope, 100, false))
                .isInstanceOf(JsonParseException.class)
                .hasMessageContaining("100 levels");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 100})
    void shouldAcceptDocumentsUpToTheLimit(int depth) {
        assertThatCode(() -> BoundedJson.parse(nestedDocuments(depth), 100, false))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldRefuseOneLevelOverTheLimit() {
        assertThatThrownBy(() -> BoundedJson.parse(nestedDocuments(101), 100, false))
                .isInstanceOf(JsonParseException.class);
    }

    @Test
    void shouldCountArraysAndScopesAsLevels() {
        // n $and levels nest 2n + 1 deep (a document and an array each, and {"a": 1}): 99 for 49, 101 for 50.
        assertThatCode(() -> BoundedJson.parse(nestedAnds(49), 100, false)).doesNotThrowAnyException();
        assertThatThrownBy(() -> BoundedJson.parse(nestedAnds(50), 100, false)).isInstanceOf(JsonParseException.class);
        // The scope is a level of its own, like a subdocument: 3 levels here.
        String scope = "{\"f\": {\"$code\": \"x\", \"$scope\": " + nestedDocuments(2) + "}}";
        assertThatCode(() -> BoundedJson.parse(scope, 3, false)).doesNotThrowAnyException();
        assertThatThrownBy(() -> BoundedJson.parse(scope, 2, false)).isInstanceOf(JsonParseException.class);
    }

    @Test
    void shouldReadExtendedJsonValuesAsLeaves() {
        assertThatCode(() -> BoundedJson.parse(
                        "{\"d\": {\"$date\": {\"$numberLong\": \"1\"}}, \"r\": {\"$regularExpression\":"
                                + " {\"pattern\": \"[{\", \"options\": \"\"}}, \"s\": \"{{{[[[\"}",
                        1,
                        false))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldLeaveSyntaxErrorsToTheParser() {
        assertThatThrownBy(() -> BoundedJson.parse("{\"a\": ", 100, false)).isInstanceOf(JsonParseException.class);
    }

    @Test
    void shouldStillAcceptANestedFilterWithinTheLimit() {
        assertThat(config(FILTER, nestedAnds(10)).rules().rules().get(0).partialFilter())
                .isNotNull();
    }
}
