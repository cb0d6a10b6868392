package io.ttlstreams.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class ChangeEventTest {

    private static final Instant T = Instant.ofEpochMilli(1_700_000_000_000L);
    private static final BsonDocument KEY = BsonDocument.parse("{\"_id\": {\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}}");

    @Test
    void shouldWriteDocumentKeyAsCanonicalExtendedJson() {
        ChangeEvent event = new ChangeEvent(OperationType.DELETE, "app.sessions", KEY, null, T, null);

        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": {\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}}");
    }

    @Test
    void shouldHaveNoDocumentKeyJsonWithoutDocumentKey() {
        ChangeEvent event = new ChangeEvent(OperationType.DROP, "app.sessions", null, null, T, null);

        assertThat(event.documentKeyJson()).isNull();
        assertThat(event.isNamespaceWide()).isTrue();
    }

    @Test
    void shouldTakeDatabaseUpToTheFirstDot() {
        assertThat(new ChangeEvent(OperationType.INSERT, "app.sessions.v2", KEY, null, T, null).database())
                .isEqualTo("app");
        assertThat(new ChangeEvent(OperationType.DROP_DATABASE, "app", null, null, T, null).database())
                .isEqualTo("app");
    }

    @Test
    void shouldRejectDocumentEventWithoutDocumentKey() {
        assertThatThrownBy(() -> new ChangeEvent(OperationType.UPDATE, "app.s", null, new BsonDocument(), T, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("document key");
    }

    @Test
    void shouldRejectNamespaceWideEventWithDocumentKey() {
        assertThatThrownBy(() -> new ChangeEvent(OperationType.RENAME, "app.s", KEY, null, T, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no document key");
    }

    @Test
    void shouldAllowOtherEventsWithOrWithoutDocumentKey() {
        assertThat(new ChangeEvent(OperationType.OTHER, "app.s", null, null, T, null).documentKeyJson())
                .isNull();
        assertThat(new ChangeEvent(
                                OperationType.OTHER,
                                "app.s",
                                new BsonDocument("_id", new BsonString("x")),
                                null,
                                T,
                                null)
                        .documentKeyJson())
                .isEqualTo("{\"_id\": \"x\"}");
    }

    @Test
    void shouldRequireOperationTypeNamespaceAndEventTime() {
        assertThatThrownBy(() -> new ChangeEvent(null, "app.s", KEY, null, T, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("operationType");
        assertThatThrownBy(() -> new ChangeEvent(OperationType.INSERT, null, KEY, null, T, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("namespace");
        assertThatThrownBy(() -> new ChangeEvent(OperationType.INSERT, "app.s", KEY, null, null, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("eventTime");
    }
}
