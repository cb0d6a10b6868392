package io.ttlstreams.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.http.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QueryEndpointsTest {

    @ParameterizedTest
    @CsvSource({"30s, PT30S", "5m, PT5M", "1h, PT1H", "2d, PT48H", "250ms, PT0.25S", "PT10M, PT10M"})
    void shouldReadShortAndIsoBuckets(String text, String expected) {
        assertThat(QueryParameters.bucket(text)).isEqualTo(Duration.parse(expected));
    }

    @Test
    void shouldRefuseWhatItCannotRead() {
        assertThatThrownBy(() -> QueryParameters.bucket("soon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("30s, 5m, 1h or PT5M");
        assertThatThrownBy(() -> QueryParameters.instant("from", "yesterday"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ISO-8601 instant");
        assertThatThrownBy(() -> DocumentEndpoint.documentKey("\"s1\""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{\"_id\": \"s1\"}");
        assertThat(QueryParameters.instant("to", "2026-01-01T00:00:01Z"))
                .isEqualTo(Instant.parse("2026-01-01T00:00:01Z").toEpochMilli());
        assertThat(DocumentEndpoint.documentKey("{\"_id\": {\"$oid\": \"5f0000000000000000000001\"}}"))
                .isEqualTo(BsonDocument.parse("{\"_id\": {\"$oid\": \"5f0000000000000000000001\"}}"));
    }

    @Test
    void shouldReadABareSegmentAsAStringIdWhenItIsNotJson() {
        assertThat(DocumentEndpoint.documentKey("long0")).isEqualTo(new BsonDocument("_id", new BsonString("long0")));
        assertThat(DocumentEndpoint.documentKey("42")).isEqualTo(new BsonDocument("_id", new BsonString("42")));
        assertThat(DocumentEndpoint.documentKey("{\"_id\": 42}")).isEqualTo(BsonDocument.parse("{\"_id\": 42}"));
    }

    @Test
    void shouldRefuseA30000LevelKeyWithoutOverflowingTheStack() {
        String deep = "{\"_id\": " + "[".repeat(30_000) + "]".repeat(30_000) + "}";

        assertThatThrownBy(() -> DocumentEndpoint.documentKey(deep))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("documentKey ")
                .hasMessageContaining("nests deeper than 200 levels");
    }

    @Test
    void shouldNameTheParameterAndBoundEachOne() {
        assertThatThrownBy(() -> QueryParameters.instant("from", "-150000000-01-01T00:00:00Z"))
                .hasMessageStartingWith("from: ");
        assertThatThrownBy(() -> QueryParameters.instant("to", "+150000000-01-01T00:00:00Z"))
                .hasMessageStartingWith("to: ");
        assertThatThrownBy(() -> QueryParameters.bucket("200000000000d")).hasMessageStartingWith("bucket: ");
        assertThatThrownBy(() -> QueryParameters.bucket("1234567890123456789012d"))
                .hasMessageStartingWith("bucket: ");
        assertThatThrownBy(() -> QueryParameters.bucket("PT-1M")).hasMessageStartingWith("bucket: ");
        assertThatThrownBy(() -> QueryParameters.bucket("PT0.0001S")).hasMessageStartingWith("bucket: ");
        assertThat(QueryParameters.bucket("366d")).isEqualTo(QueryParameters.MAX_BUCKET);
        assertThat(QueryParameters.instant("to", "9999-12-31T23:59:59.999Z"))
                .isEqualTo(QueryParameters.LATEST.toEpochMilli());
    }

    @Test
    void shouldWriteTheMergedHistogramWithAnUnreachableInstanceAsItsErrorAlone() {
        Instant from = Instant.parse("2026-01-01T00:00:00Z");
        ScheduleHistogram.Upcoming upcoming = new ScheduleHistogram.Upcoming(
                from,
                from.plusSeconds(60),
                "PT1M",
                Optional.empty(),
                false,
                2,
                List.of(new ScheduleHistogram.Bucket(from, 2)),
                List.of(
                        new ScheduleHistogram.InstanceCounts("10.0.0.1:8080", true, 2L, null),
                        new ScheduleHistogram.InstanceCounts("10.0.0.2:8080", null, null, "Connection refused")));

        assertThat(Json.write(upcoming))
                .isEqualTo(
                        "{\"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-01T00:01:00Z\", \"bucket\": \"PT1M\","
                                + " \"namespace\": null, \"complete\": false, \"total\": 2,"
                                + " \"buckets\": [{\"start\": \"2026-01-01T00:00:00Z\", \"count\": 2}],"
                                + " \"instances\": [{\"instance\": \"10.0.0.1:8080\", \"complete\": true, \"total\": 2},"
                                + " {\"instance\": \"10.0.0.2:8080\", \"error\": \"Connection refused\"}]}");
    }

    @Test
    void shouldWriteAScheduledDocumentWithItsKeyAsExtendedJsonWhenFound() {
        DocumentEndpoint.Scheduled found = new DocumentEndpoint.Scheduled(
                "app.sessions",
                new Json.Raw("{\"_id\": \"s1\"}"),
                "scheduled",
                Instant.parse("2026-01-01T00:00:00Z"),
                null,
                "sessions",
                "10.0.0.1:8080",
                3);

        assertThat(Json.write(found))
                .isEqualTo(
                        "{\"namespace\": \"app.sessions\", \"documentKey\": {\"_id\": \"s1\"}, \"state\": \"scheduled\","
                                + " \"deadline\": \"2026-01-01T00:00:00Z\", \"notice\": null, \"rule\": \"sessions\","
                                + " \"instance\": \"10.0.0.1:8080\","
                                + " \"partition\": 3}");
    }
}
