package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.json.JsonParseException;
import org.bson.json.JsonReader;
import org.junit.jupiter.api.Test;

class BoundedJsonTest {

    /** A document holding every type extended JSON can spell. */
    private static final String EVERY_TYPE = """
            {"_id": {"$oid": "5f1b2c3d4e5f607182930a4b"}, "s": "x", "i": {"$numberInt": "1"},
             "l": {"$numberLong": "2"}, "d": {"$numberDouble": "0.5"}, "m": {"$numberDecimal": "1.10"},
             "t": true, "n": null, "date": {"$date": {"$numberLong": "1"}},
             "ts": {"$timestamp": {"t": 1, "i": 2}}, "b": {"$binary": {"base64": "AA==", "subType": "04"}},
             "re": {"$regularExpression": {"pattern": "a", "options": "i"}}, "u": {"$undefined": true},
             "min": {"$minKey": 1}, "max": {"$maxKey": 1}, "sym": {"$symbol": "s"},
             "code": {"$code": "f()"}, "scoped": {"$code": "g()", "$scope": {"x": [1, {"y": 2}]}},
             "ptr": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "5f1b2c3d4e5f607182930a4b"}}},
             "nested": [[{"a": [1, 2.5, "z"]}], {}], "ops": {"$exists": true}}""";

    /** Of the top level, the fields named; of "keep", the field "k" only. */
    private static BsonDocument projected(String json, String... names) {
        Set<String> kept = Set.of(names);
        BoundedJson.Fields fields = name -> name.equals("keep")
                ? inner -> inner.equals("k") ? BoundedJson.Fields.ALL : null
                : kept.contains(name) ? BoundedJson.Fields.ALL : null;
        try (JsonReader reader = new JsonReader(json)) {
            return BoundedJson.readDocument(reader, fields);
        }
    }

    @Test
    void shouldSkipEveryTypeAndBuildWhatTheFieldsName() {
        assertThat(projected(EVERY_TYPE)).isEmpty();
        assertThat(projected(EVERY_TYPE, "s", "scoped", "nested", "ptr")).isEqualTo(BsonDocument.parse("""
                        {"s": "x", "scoped": {"$code": "g()", "$scope": {"x": [1, {"y": 2}]}},
                         "ptr": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "5f1b2c3d4e5f607182930a4b"}}},
                         "nested": [[{"a": [1, 2.5, "z"]}], {}]}"""));
        assertThat(projected("{\"keep\": {\"k\": [1], \"j\": {\"x\": 1}}, \"keep2\": 1, \"keep\": {\"k\": 2}}"))
                .as("a repeated name keeps its last value")
                .isEqualTo(BsonDocument.parse("{\"keep\": {\"k\": 2}}"));
    }

    @Test
    void shouldReadWhatTheLibraryReadsWithEveryType() {
        assertThat(BoundedJson.parse(EVERY_TYPE)).isEqualTo(BsonDocument.parse(EVERY_TYPE));
    }

    @Test
    void shouldCountLevelsFromTheTopLevelDocument() {
        assertThat(BoundedJson.parse(nested(BoundedJson.MAX_DEPTH))).isNotNull();
        assertThatThrownBy(() -> BoundedJson.parse(nested(BoundedJson.MAX_DEPTH + 1)))
                .isInstanceOf(JsonParseException.class)
                .hasMessage("the JSON nests deeper than 200 levels of documents and arrays");
    }

    @Test
    void shouldLimitTheScopeOfJavaScriptToo() {
        String deepScope = "{\"f\": {\"$code\": \"x\", \"$scope\": " + nested(50_000) + "}}";

        assertThatThrownBy(() -> BoundedJson.parse(deepScope)).hasMessageContaining("nests deeper than 200");
    }

    @Test
    void shouldRejectDeepNestingThatWouldOverflowTheLibrarysStack() {
        String deep = nested(50_000);

        assertThatThrownBy(() -> BsonDocument.parse(deep))
                .as("the library alone")
                .isInstanceOf(StackOverflowError.class);
        assertThatThrownBy(() -> BoundedJson.parse(deep)).isInstanceOf(JsonParseException.class);
    }

    @Test
    void shouldCountTheLevelsOfSkippedValuesAsOfBuiltOnes() {
        // A skipped array of documents, a skipped document, a skipped scope: each at the limit, then one over it.
        for (String json : List.of(
                "{\"skip\": %s}", "{\"keep\": {\"j\": %s}}", "{\"f\": {\"$code\": \"x\", \"$scope\": {\"s\": %s}}}")) {
            int above = json.startsWith("{\"skip") ? 1 : 2;
            assertThat(projected(json.formatted(nested(BoundedJson.MAX_DEPTH - above))))
                    .isNotNull();
            assertThat(BoundedJson.parse(json.formatted(nested(BoundedJson.MAX_DEPTH - above))))
                    .isNotNull();
            for (String over : List.of(nested(BoundedJson.MAX_DEPTH - above + 1), nested(50_000))) {
                assertThatThrownBy(() -> projected(json.formatted(over)))
                        .as(json)
                        .isInstanceOf(JsonParseException.class)
                        .hasMessage("the JSON nests deeper than 200 levels of documents and arrays");
            }
        }
    }

    @Test
    void shouldFailOnMalformedExtendedJsonInASkippedValue() {
        assertThatThrownBy(() -> projected("{\"skip\": {\"d\": {\"$date\": \"yesterday\"}}}"))
                .isInstanceOf(JsonParseException.class);
        assertThatThrownBy(() -> projected("{\"skip\": [1, {\"$oid\": \"xyz\"}]}"))
                .isInstanceOf(RuntimeException.class);
    }

    /** A document of {@code levels} levels: documents and arrays in turn. */
    private static String nested(int levels) {
        StringBuilder json = new StringBuilder();
        for (int i = 0; i < levels; i++) {
            json.append(i % 2 == 0 ? "{\"a\": " : "[");
        }
        json.append('1');
        for (int i = levels - 1; i >= 0; i--) {
            json.append(i % 2 == 0 ? '}' : ']');
        }
        return json.toString();
    }
}
