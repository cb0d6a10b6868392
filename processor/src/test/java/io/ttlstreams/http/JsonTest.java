package io.ttlstreams.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void shouldWriteWhatTheEndpointsAnswer() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("text", "a \"quoted\"\\ line\n<b>&");
        value.put("at", Instant.parse("2026-01-01T00:00:00Z"));
        value.put("count", 3L);
        value.put("ratio", 0.5);
        value.put("nan", Double.NaN);
        value.put("absent", Optional.empty());
        value.put("present", OptionalLong.of(7));
        value.put("none", OptionalDouble.empty());
        value.put("list", Arrays.asList(true, null, List.of()));
        value.put("empty", Map.of());
        value.put("key", new Json.Raw("{\"_id\": {\"$numberLong\": \"1\"}}"));

        String json = Json.write(value);

        assertThat(json)
                .isEqualTo("{\"text\": \"a \\\"quoted\\\"\\\\ line\\n\\u003cb\\u003e\\u0026\","
                        + " \"at\": \"2026-01-01T00:00:00Z\", \"count\": 3, \"ratio\": 0.5, \"nan\": null,"
                        + " \"absent\": null, \"present\": 7, \"none\": null, \"list\": [true, null, []], \"empty\": {},"
                        + " \"key\": {\"_id\": {\"$numberLong\": \"1\"}}}");
        BsonDocument parsed = BsonDocument.parse(json);
        assertThat(parsed.getString("text").getValue()).isEqualTo("a \"quoted\"\\ line\n<b>&");
        assertThat(parsed.getDocument("key").get("_id").isInt64()).isTrue();
    }

    @Test
    void shouldEscapeMarkupInRawJsonSoThatAnEchoedKeyCannotTurnIntoMarkup() {
        String key = "{\"_id\": \"</script><img src=x onerror=alert(1)>&amp;\"}";

        String json = Json.write(Map.of("documentKey", new Json.Raw(key)));

        assertThat(json).doesNotContain("<", ">", "&");
        assertThat(BsonDocument.parse(json).getDocument("documentKey")).isEqualTo(BsonDocument.parse(key));
    }

    record Figures(String name, OptionalDouble p99, double max, List<Instant> at) {}

    @Test
    void shouldWriteARecordsComponentsInTheirOrderWhenTheBodyIsTyped() {
        String json = Json.write(new Figures(
                "a&b",
                OptionalDouble.empty(),
                Double.POSITIVE_INFINITY,
                List.of(Instant.parse("2026-01-01T00:00:00Z"))));

        assertThat(json)
                .isEqualTo("{\"name\": \"a\\u0026b\", \"p99\": null, \"max\": null,"
                        + " \"at\": [\"2026-01-01T00:00:00Z\"]}");
    }
}
