package io.ttlstreams.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class ChangeEventTest {

    private static final Instant T = Instant.ofEpochMilli(1_700_000_000_000L);
    private static final BsonDocument KEY = BsonDocument.parse("{\"_id\": {\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}}");

    @Test
    void shouldRejectAPreImageTooLargeToCarryWithoutItsMarker() {
        assertThatThrownBy(() -> new ChangeEvent(
                        OperationType.DELETE, Namespace.valueOf("app.sessions"), KEY, null, T, null, null, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("marker");
        assertThat(new ChangeEvent(
                                OperationType.DELETE, Namespace.valueOf("app.sessions"), KEY, null, T, null, KEY, true)
                        .withEventTime(T.plusSeconds(1))
                        .preImageTooLarge())
                .as("kept when the time changes")
                .isTrue();
    }

    @Test
    void shouldWriteDocumentKeyAsCanonicalExtendedJson() {
        ChangeEvent event =
                new ChangeEvent(OperationType.DELETE, Namespace.valueOf("app.sessions"), KEY, null, T, null);

        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": {\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}}");
    }

    @Test
    void shouldHaveNoDocumentKeyJsonWithoutDocumentKey() {
        ChangeEvent event = new ChangeEvent(OperationType.DROP, Namespace.valueOf("app.sessions"), null, null, T, null);

        assertThat(event.documentKeyJson()).isNull();
        assertThat(event.isNamespaceWide()).isTrue();
    }

    @Test
    void shouldRejectDocumentEventWithoutDocumentKey() {
        assertThatThrownBy(() -> new ChangeEvent(
                        OperationType.UPDATE, Namespace.valueOf("app.s"), null, new BsonDocument(), T, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("document key");
    }

    @Test
    void shouldRejectNamespaceWideEventWithDocumentKey() {
        assertThatThrownBy(() -> new ChangeEvent(OperationType.RENAME, Namespace.valueOf("app.s"), KEY, null, T, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no document key");
    }

    @Test
    void shouldAllowOtherEventsWithOrWithoutDocumentKey() {
        assertThat(new ChangeEvent(OperationType.OTHER, Namespace.valueOf("app.s"), null, null, T, null)
                        .documentKeyJson())
                .isNull();
        assertThat(new ChangeEvent(
                                OperationType.OTHER,
                                Namespace.valueOf("app.s"),
                                new BsonDocument("_id", new BsonString("x")),
                                null,
                                T,
                                null)
                        .documentKeyJson())
                .isEqualTo("{\"_id\": \"x\"}");
    }

    @Test
    void shouldRequireOperationTypeNamespaceAndEventTime() {
        assertThatThrownBy(() -> new ChangeEvent(null, Namespace.valueOf("app.s"), KEY, null, T, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("operationType");
        assertThatThrownBy(() -> new ChangeEvent(OperationType.INSERT, null, KEY, null, T, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("namespace");
        assertThatThrownBy(
                        () -> new ChangeEvent(OperationType.INSERT, Namespace.valueOf("app.s"), KEY, null, null, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("eventTime");
    }
}
