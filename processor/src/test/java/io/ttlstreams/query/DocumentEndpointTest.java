package io.ttlstreams.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.http.Request;
import io.ttlstreams.http.Response;
import io.ttlstreams.schema.UnscheduledNote;
import io.ttlstreams.state.ScheduleQueries.ScheduledDocument;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** {@code GET /v1/documents/{ns}/{key}} on the instance that owns the document: scheduled, or why not. */
class DocumentEndpointTest {

    private static final HostInfo SELF = new HostInfo("10.0.0.1", 8080);
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final Map<BsonDocument, ScheduledDocument> scheduled = new HashMap<>();
    private final Map<BsonDocument, UnscheduledNote> notes = new HashMap<>();
    private final DocumentEndpoint endpoint = new DocumentEndpoint(
            new DocumentEndpoint.Lookup() {
                @Override
                public KeyQueryMetadata owner(BsonDocument documentKey) {
                    return new KeyQueryMetadata(SELF, Set.of(), 3);
                }

                @Override
                public String state() {
                    return "RUNNING";
                }

                @Override
                public Optional<ScheduledDocument> scheduled(int partition, Namespace namespace, BsonDocument key) {
                    return Optional.ofNullable(scheduled.get(key));
                }

                @Override
                public Optional<UnscheduledNote> note(int partition, Namespace namespace, BsonDocument key) {
                    return Optional.ofNullable(notes.get(key));
                }
            },
            SELF,
            new PeerClient(Optional.empty()),
            Clock.fixed(NOW, ZoneOffset.UTC));

    private Response get(String path) throws Exception {
        return endpoint.document(new Request(path, null, false));
    }

    @Test
    void shouldSayWhyADocumentIsNotScheduledWhenTheProcessorNotedAReason() throws Exception {
        BsonDocument key = BsonDocument.parse("{\"_id\": \"long0\"}");
        notes.put(
                key,
                new UnscheduledNote(
                        ByteBuffer.wrap(new byte[0]),
                        "rule sessions: field expireAt is a string (\"2026-01-02\"), not a date",
                        "update",
                        NOW.minusSeconds(60)));

        Response response = get("/v1/documents/app.sessions/long0");

        assertThat(response.status()).isEqualTo(404);
        assertThat(response.bodyText().strip())
                .isEqualTo("{\"namespace\": \"app.sessions\", \"documentKey\": {\"_id\": \"long0\"},"
                        + " \"state\": \"not-scheduled\", \"seen\": true,"
                        + " \"reason\": \"rule sessions: field expireAt is a string (\\\"2026-01-02\\\"), not a date\","
                        + " \"operation\": \"update\", \"since\": \"2025-12-31T23:59:00Z\","
                        + " \"instance\": \"10.0.0.1:8080\", \"partition\": 3}");
    }

    @Test
    void shouldSayNeverSeenWhenTheProcessorHoldsNothingOfTheDocument() throws Exception {
        Response response = get("/v1/documents/app.sessions/%7B%22_id%22%3A%22nobody%22%7D");

        assertThat(response.status()).isEqualTo(404);
        BsonDocument body = BsonDocument.parse(response.bodyText());
        assertThat(body.getString("state").getValue()).isEqualTo("not-scheduled");
        assertThat(body.getBoolean("seen").getValue()).isFalse();
        assertThat(body.getString("reason").getValue()).startsWith("never seen: ");
        assertThat(body.containsKey("operation")).isFalse();
        assertThat(body.getDocument("documentKey")).isEqualTo(BsonDocument.parse("{\"_id\": \"nobody\"}"));
    }

    @Test
    void shouldAnswerTheDeadlineWhenTheDocumentIsScheduledUnderABareStringId() throws Exception {
        BsonDocument key = BsonDocument.parse("{\"_id\": \"s1\"}");
        scheduled.put(
                key,
                new ScheduledDocument(
                        Namespace.parse("app.sessions"), key, "scheduled", NOW.plusSeconds(30), "sessions", 0, null));

        Response response = get("/v1/documents/app.sessions/s1");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.bodyText().strip())
                .isEqualTo("{\"namespace\": \"app.sessions\", \"documentKey\": {\"_id\": \"s1\"},"
                        + " \"state\": \"scheduled\", \"deadline\": \"2026-01-01T00:00:30Z\", \"notice\": null,"
                        + " \"rule\": \"sessions\","
                        + " \"instance\": \"10.0.0.1:8080\", \"partition\": 3}");
    }

    @Test
    void shouldAnswer503WhenTheOwnerIsNotKnownYet() throws Exception {
        DocumentEndpoint starting = new DocumentEndpoint(
                new DocumentEndpoint.Lookup() {
                    @Override
                    public KeyQueryMetadata owner(BsonDocument documentKey) {
                        return KeyQueryMetadata.NOT_AVAILABLE;
                    }

                    @Override
                    public String state() {
                        return "REBALANCING";
                    }

                    @Override
                    public Optional<ScheduledDocument> scheduled(int partition, Namespace ns, BsonDocument key) {
                        throw new AssertionError("not the owner");
                    }

                    @Override
                    public Optional<UnscheduledNote> note(int partition, Namespace ns, BsonDocument key) {
                        throw new AssertionError("not the owner");
                    }
                },
                SELF,
                new PeerClient(Optional.empty()),
                Clock.fixed(NOW, ZoneOffset.UTC));

        Response response = starting.document(new Request("/v1/documents/app.sessions/s1", null, false));

        assertThat(response.status()).isEqualTo(503);
        assertThat(response.bodyText()).contains("Kafka Streams is REBALANCING");
    }
}
