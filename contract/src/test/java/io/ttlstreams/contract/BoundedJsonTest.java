package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.bson.BsonDocument;
import org.bson.json.JsonParseException;
import org.junit.jupiter.api.Test;

class BoundedJsonTest {

    @Test
    void shouldReadWhatTheLibraryReadsWithEveryType() {
        String json = """
                {"_id": {"$oid": "5f1b2c3d4e5f607182930a4b"}, "s": "x", "i": {"$numberInt": "1"},
                 "l": {"$numberLong": "2"}, "d": {"$numberDouble": "0.5"}, "m": {"$numberDecimal": "1.10"},
                 "t": true, "n": null, "date": {"$date": {"$numberLong": "1"}},
                 "ts": {"$timestamp": {"t": 1, "i": 2}}, "b": {"$binary": {"base64": "AA==", "subType": "04"}},
                 "re": {"$regularExpression": {"pattern": "a", "options": "i"}}, "u": {"$undefined": true},
                 "min": {"$minKey": 1}, "max": {"$maxKey": 1}, "sym": {"$symbol": "s"},
                 "code": {"$code": "f()"}, "scoped": {"$code": "g()", "$scope": {"x": [1, {"y": 2}]}},
                 "ptr": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "5f1b2c3d4e5f607182930a4b"}}},
                 "nested": [[{"a": [1, 2.5, "z"]}], {}], "ops": {"$exists": true}}""";

        assertThat(BoundedJson.parse(json)).isEqualTo(BsonDocument.parse(json));
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
